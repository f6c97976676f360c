//! Parse: the handler function, one reader for tools, resources and prompts:
//! which parameter is the input, which the context, which the shared state;
//! for a tool also what the success and error types are, for a resource or a
//! prompt the check of its return type.

use syn::{Expr, FnArg, GenericArgument, ItemFn, Lit, Meta, PathArguments, ReturnType, Type};

use crate::diag::{Diagnostics, message};
use crate::kind::Kind;
use crate::rules::HANDLER_SIGNATURE;

/// The context parameter, by how it is typed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CtxKind {
    /// `ctx: Ctx` — the macro fills in the tool's reason type.
    Typed,
    /// `ctx: Ctx<SomeReason>` — written out by the author; kept.
    TypedExplicit,
    /// `ctx: Context` — the untyped context.
    Untyped,
}

/// One parameter of the handler, in order.
pub(crate) enum Param {
    Input(Box<Type>),
    /// The context, taken by value or (`by_ref`) as `&Ctx`.
    Ctx {
        kind: CtxKind,
        by_ref: bool,
    },
    /// Shared state, `State<T>`: holds `T`.
    State(Box<Type>),
}

pub(crate) struct Handler {
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    /// `T` of `Result<T, E>`.
    pub(crate) output: Type,
    /// `E` of `Result<T, E>`; `None` for an alias such as `Result<T>`.
    pub(crate) error: Option<Type>,
    /// The context parameter's name, when it is a plain binding (`ctx`).
    pub(crate) ctx_name: Option<syn::Ident>,
    /// The handler has a shape the tool can call; when it does not, that was
    /// reported and the expansion stubs the call, so no second error follows.
    pub(crate) shape_ok: bool,
    /// The success type is `String`: a text-only tool without an output schema.
    pub(crate) text_only: bool,
    /// The doc comment, joined into one paragraph.
    pub(crate) doc: Option<String>,
    /// The handler carries `#[allow(deprecated)]`, which silences our warnings too.
    pub(crate) allow_deprecated: bool,
}

/// The input parameter's type: a tool's input, a resource's params, a prompt's arguments.
pub(crate) fn input(params: &[Param]) -> Option<&Type> {
    params.iter().find_map(|param| match param {
        Param::Input(ty) => Some(&**ty),
        Param::Ctx { .. } | Param::State(_) => None,
    })
}

/// The `T` of each `State<T>` parameter, in order.
pub(crate) fn states(params: &[Param]) -> impl Iterator<Item = &Type> {
    params.iter().filter_map(|param| match param {
        Param::State(ty) => Some(&**ty),
        Param::Input(_) | Param::Ctx { .. } => None,
    })
}

impl Handler {
    pub(crate) fn input(&self) -> Option<&Type> {
        input(&self.params)
    }

    /// The `T` of each `State<T>` parameter, in order.
    pub(crate) fn states(&self) -> impl Iterator<Item = &Type> {
        states(&self.params)
    }

    pub(crate) fn ctx(&self) -> Option<CtxKind> {
        self.params.iter().find_map(|param| match param {
            Param::Ctx { kind, .. } => Some(*kind),
            Param::Input(_) | Param::State(_) => None,
        })
    }
}

pub(crate) fn parse(item: ItemFn, diag: &mut Diagnostics) -> Handler {
    let sig = &item.sig;
    let Signature { params, ctx_name, mut shape_ok } = signature(sig, Kind::Tool, diag);
    if !sig.generics.params.is_empty() {
        diag.error(syn::Error::new_spanned(
            &sig.generics,
            message(
                HANDLER_SIGNATURE,
                "`#[mcp_tool]` handlers cannot be generic: the tool's schemas need concrete types",
            ),
        ));
        shape_ok = false;
    }

    let (output, text_only) = match success_type(&sig.output) {
        Some((ty, _)) => (ty.clone(), is_string(ty)),
        None => {
            let span_of: &dyn quote::ToTokens = match &sig.output {
                ReturnType::Default => &sig.ident,
                ReturnType::Type(_, ty) => ty,
            };
            diag.error(syn::Error::new_spanned(
                span_of,
                message(
                    HANDLER_SIGNATURE,
                    format_args!("a `#[{}]` handler returns {}", Kind::Tool.attribute(), Kind::Tool.returns()),
                ),
            ));
            shape_ok = false;
            (syn::parse_quote!(::std::string::String), true)
        }
    };

    let error = success_type(&sig.output).and_then(|(_, error)| error.cloned());
    let doc = doc_paragraph(&item);
    let allow_deprecated = item.attrs.iter().any(|attr| {
        attr.path().is_ident("allow")
            && attr
                .parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
                .is_ok_and(|paths| paths.iter().any(|path| path.is_ident("deprecated")))
    });

    Handler { item, params, output, error, ctx_name, shape_ok, text_only, doc, allow_deprecated }
}

/// A handler's parameters as the call hands them in.
pub(crate) struct Signature {
    pub(crate) params: Vec<Param>,
    /// The context parameter's name, when it is a plain binding (`ctx`).
    pub(crate) ctx_name: Option<syn::Ident>,
    /// No parameter was refused.
    pub(crate) shape_ok: bool,
}

/// Read the parameters of a tool's, resource's or prompt's handler: one input
/// (a tool's input, a resource's params, a prompt's arguments), one context
/// (`Ctx`, `Ctx<R>`, `Context`, by value or by `&`), any `State<T>`s.
pub(crate) fn signature(sig: &syn::Signature, kind: Kind, diag: &mut Diagnostics) -> Signature {
    let mut shape_ok = true;
    if let Some(receiver) = sig.receiver() {
        let text = match kind {
            Kind::Tool => "`#[mcp_tool]` handlers are free functions; move the `self` state into a static or a service the handler calls".to_owned(),
            Kind::Resource | Kind::Prompt => format!("`#[{}]` handlers are free functions", kind.attribute()),
        };
        diag.error(syn::Error::new_spanned(receiver, message(HANDLER_SIGNATURE, text)));
        shape_ok = false;
    }
    let mut params = Vec::new();
    let mut ctx_name = None;
    for arg in &sig.inputs {
        let FnArg::Typed(arg) = arg else { continue };
        let (ty, by_ref) = match &*arg.ty {
            Type::Reference(reference) if reference.mutability.is_none() => (&*reference.elem, true),
            ty => (ty, false),
        };
        let param = match (ctx_kind(ty), state_type(&arg.ty)) {
            (Some(kind), _) => {
                if let syn::Pat::Ident(binding) = &*arg.pat {
                    ctx_name = Some(binding.ident.clone());
                }
                Param::Ctx { kind, by_ref }
            }
            (None, Some(state)) => Param::State(Box::new(state.clone())),
            (None, None) => {
                if let (Kind::Tool, Type::Reference(reference)) = (kind, &*arg.ty) {
                    // Without this, rustc reports a missing lifetime in the
                    // generated `type Input`, far from the `&`. A borrowed
                    // parameter is most often shared state (`db: &Db`), which
                    // the macro cannot tell from an input (it cannot know what
                    // the server registers): `State<T>` leads. The parameter is
                    // then left out, so a second, real input is no knock-on
                    // "at most one input parameter".
                    let (pat, elem) =
                        (quote::ToTokens::to_token_stream(&arg.pat), quote::ToTokens::to_token_stream(&reference.elem));
                    diag.error(syn::Error::new_spanned(
                        reference,
                        message(
                            HANDLER_SIGNATURE,
                            format_args!(
                                "a tool handler takes no borrowed parameter: if `{elem}` is shared state, take \
                                 `{pat}: State<{elem}>` and register it with `Server::new(..).state(value)`; \
                                 if it is the tool's input, take it by value, `{pat}: {elem}`, as it is decoded \
                                 from each call's arguments"
                            ),
                        ),
                    ));
                    shape_ok = false;
                    continue;
                }
                Param::Input(arg.ty.clone())
            }
        };
        // Several `State<T>` parameters are fine, one per type; rustc reports a
        // type taken twice no more than it would for any other function.
        let repeated = !matches!(param, Param::State(_))
            && params.iter().any(|seen| std::mem::discriminant(seen) == std::mem::discriminant(&param));
        if repeated && kind != Kind::Tool {
            diag.error(syn::Error::new_spanned(
                arg,
                message(
                    HANDLER_SIGNATURE,
                    format_args!(
                        "a {} handler takes at most one params or arguments struct and one context; shared state is taken as `State<T>`",
                        kind.noun()
                    ),
                ),
            ));
            shape_ok = false;
        } else if repeated {
            let what = match param {
                Param::Input(_) => {
                    "one input parameter (a struct deriving `Deserialize` and `JsonSchema`); \
                     shared state is taken as `State<T>`"
                }
                Param::Ctx { .. } | Param::State(_) => "one context parameter",
            };
            diag.error(syn::Error::new_spanned(
                arg,
                message(HANDLER_SIGNATURE, format_args!("a handler takes at most {what}")),
            ));
            shape_ok = false;
        } else {
            params.push(param);
        }
    }

    Signature { params, ctx_name, shape_ok }
}

/// The parameters of a resource's or prompt's handler, read as a tool's are
/// ([`signature`]), and the check of its return type, which differs per kind.
pub(crate) fn parse_params(item: &ItemFn, diag: &mut Diagnostics, kind: Kind) -> Vec<Param> {
    let params = signature(&item.sig, kind, diag).params;
    if !matches!(&item.sig.output, ReturnType::Type(_, ty) if last_segment(ty).is_some_and(|(name, _)| name == "Result"))
    {
        let span = match &item.sig.output {
            ReturnType::Default => item.sig.ident.span(),
            ReturnType::Type(_, ty) => syn::spanned::Spanned::span(&**ty),
        };
        diag.rule_error(
            crate::rules::HANDLER_SIGNATURE,
            span,
            format_args!("a `#[{}]` handler returns {}", kind.attribute(), kind.returns()),
        );
    }
    params
}

fn last_segment(ty: &Type) -> Option<(&str, &PathArguments)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    // The ident's text lives in the token; leak-free through a match on known names.
    let name = ["Context", "Ctx", "State", "Result"].into_iter().find(|known| last.ident == known)?;
    Some((name, &last.arguments))
}

/// `Ctx`, `Ctx<R>`, `Context`, with any leading path.
fn ctx_kind(ty: &Type) -> Option<CtxKind> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    match (last.ident.to_string().as_str(), &last.arguments) {
        ("Ctx", PathArguments::None) => Some(CtxKind::Typed),
        ("Ctx", _) => Some(CtxKind::TypedExplicit),
        ("Context", PathArguments::None) => Some(CtxKind::Untyped),
        _ => None,
    }
}

/// `T` of `State<T>`, with any leading path; by value only, as the handler
/// gets its own clone of the shared `Arc`.
fn state_type(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "State" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(ty)] => Some(ty),
        _ => None,
    }
}

/// `T` and `E` of a return type `Result<T, E>` (`E` is `None` for `Result<T>`).
fn success_type(output: &ReturnType) -> Option<(&Type, Option<&Type>)> {
    let ReturnType::Type(_, ty) = output else { return None };
    let Type::Path(path) = &**ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    let mut types = args.args.iter().filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    let success = types.next()?;
    Some((success, types.next()))
}

fn is_string(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.segments.last().is_some_and(|last| last.ident == "String"))
}

/// The `///` lines, trimmed and joined with spaces: one paragraph for the model.
pub(crate) fn doc_paragraph(item: &ItemFn) -> Option<String> {
    let lines: Vec<String> = item
        .attrs
        .iter()
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                Expr::Lit(lit) => match &lit.lit {
                    Lit::Str(text) => Some(text.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| text.lines().map(|line| line.trim().to_owned()).collect::<Vec<_>>())
        .filter(|line| !line.is_empty())
        .collect();
    (!lines.is_empty()).then(|| lines.join(" "))
}
