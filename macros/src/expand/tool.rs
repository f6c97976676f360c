//! Expand: the handler as written (with its typed context), the reason enum
//! (`contract`), and the tool type implementing the runtime's `Tool`.
//!
//! What the expansion repeats for every tool is kept small (the guide's
//! build-cost benchmark measures it): whatever does not depend on the tool (the
//! reason's accessors, the error conversion, the await of an async handler)
//! lives once in the runtime, and the impls reach the runtime
//! through one short alias inside a `const _` block, where it shadows nothing
//! of the author's.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, Type};

use super::contract::{reason_enum, reason_impl, type_the_context};
use super::reason_names::{self, Reasons};
use super::{question_mark, respan};
use crate::diag::Diagnostics;
use crate::kind::Kind;
use crate::parse::handler::{CtxKind, Handler, Param};
use crate::parse::trailer::TrailerEntry;
use crate::valid::tool::Tool;
use crate::{parse, valid};

/// `#[mcp_tool]`: the attribute's keys and the handler read, judged, and the
/// handler rewritten and expanded.
pub(crate) fn mcp_tool(args: TokenStream, item: ItemFn) -> TokenStream {
    let mut diag = Diagnostics::default();
    let raw = parse::tool::parse(args, &mut diag);
    let mut handler = parse::handler::parse(item, &mut diag);
    let allowed: Vec<String> = raw.allow.iter().map(|rule| rule.id.clone()).collect();
    let tool = valid::tool::validate(raw, &handler, &mut diag);
    if let Some(contract) = &tool.contract {
        let typed_ctx = if handler.ctx() == Some(CtxKind::Typed) { handler.ctx_name.as_ref() } else { None };
        let reasons = Reasons { contract, reason_type: &tool.reason_type, typed_ctx, kind: Kind::Tool };
        reason_names::resolve_handler(&mut handler.item, &reasons, &mut diag);
    }
    let krate = &tool.krate;
    question_mark::rewrite_handler(&mut handler.item, &quote!(#krate::__private));
    diag.retain_warnings(|warning| !allowed.iter().any(|rule| *rule == warning.rule.id));
    let allow_deprecated = handler.allow_deprecated;
    let expanded = expand(handler, &tool);
    let diagnostics = diag.into_tokens(allow_deprecated);
    quote!(#diagnostics #expanded)
}

fn expand(mut handler: Handler, tool: &Tool) -> TokenStream {
    let fn_ident = handler.item.sig.ident.clone();
    let vis = handler.item.vis.clone();
    let tool_ident = &tool.tool_type;
    let krate = &tool.krate;
    // The name the impls of the `const _` block give the runtime's macro API.
    let private = quote!(__mcp);

    let reason_type = match &tool.contract {
        Some(_) => {
            let reason_ident = &tool.reason_type;
            quote!(#reason_ident)
        }
        None => quote!(#krate::__private::NoContract),
    };
    if handler.ctx() == Some(CtxKind::Typed) {
        type_the_context(&mut handler.item, &reason_type);
    }
    // The tool hands the handler its decoded input by value (a `&T` input is an
    // error), so clippy's advice to borrow it is one the author cannot take.
    handler.item.attrs.push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));

    let reason_enum =
        tool.contract.as_ref().map(|contract| reason_enum(&vis, &fn_ident, &tool.reason_type, contract, Kind::Tool));
    let reason_impl = tool.contract.as_ref().map(|contract| reason_impl(&tool.reason_type, contract, &private));
    let tool_impl = tool_impl(&handler, tool, tool_ident, &reason_type, &private);
    let item = &handler.item;
    let name = &tool.name;
    let clone = super::copy_clone(tool_ident);
    let tool_doc = format!("The `{name}` MCP tool, served from the handler [`{fn_ident}`]; register it with a server.");

    quote! {
        #item

        #reason_enum

        #[doc = #tool_doc]
        #[derive(Copy, Debug)]
        #vis struct #tool_ident;

        #clone

        const _: () = {
            use #krate::__private as __mcp;

            #reason_impl

            #tool_impl
        };
    }
}

fn tool_impl(
    handler: &Handler,
    tool: &Tool,
    tool_ident: &Ident,
    reason_type: &TokenStream,
    private: &TokenStream,
) -> TokenStream {
    let vis = &handler.item.vis;
    let fn_ident = &handler.item.sig.ident;
    let output = &handler.output;
    // A `&T` parameter was reported and left out (see `parse::handler`).
    let input = match handler.input() {
        Some(ty) => quote!(#ty),
        None => quote!(#private::NoArguments),
    };

    // Each `State<T>` is taken from the context before the context moves into the call.
    let states: Vec<&Type> = handler.states().collect();
    let state_idents: Vec<Ident> = (0..states.len()).map(|index| format_ident!("state_{index}")).collect();
    let mut next_state = state_idents.iter();
    let args: Vec<TokenStream> = handler
        .params
        .iter()
        .map(|param| match param {
            Param::Input(_) => quote!(input),
            Param::State(_) => {
                let ident = next_state.next();
                quote!(#ident)
            }
            Param::Ctx { kind: CtxKind::Untyped, by_ref: false } => quote!(ctx),
            Param::Ctx { kind: CtxKind::Untyped, by_ref: true } => quote!(&ctx),
            Param::Ctx { by_ref: false, .. } => quote!(#private::typed_context(ctx)),
            Param::Ctx { by_ref: true, .. } => quote!(&typed_ctx),
        })
        .collect();
    // Spelled out under the type's span, so that a type that cannot be shared
    // state is reported at the user's type, not at the attribute.
    let take_states = states.iter().zip(&state_idents).map(|(ty, ident)| {
        let private = respan(private.clone(), ty.span());
        quote_spanned!(ty.span()=> let #ident = #private::State::<#ty>::from_context(&ctx)?;)
    });
    let call = quote!(#fn_ident(#(#args),*));
    // Converted as `?` converts in the body (see `question_mark`), typed with the
    // error type as written, so an error without a conversion into `McpError`
    // is reported there, with the fix.
    // Called in a closure rather than passed as a function value: a function
    // value would be checked a second time, as an `FnOnce`, at the attribute.
    // Every token of the path carries the type's span: a path of mixed spans
    // is reported at the attribute.
    // An error written `McpError` needs no conversion: the closure only
    // checks that it is this crate's (the probe below costs rustc more, per
    // tool, than the rest of the call).
    let into_mcp_error = match &handler.error {
        Some(error) if names_mcp_error(error) => {
            let span = error.span();
            let private = respan(private.clone(), span);
            quote_spanned!(span=> |error: #error| -> #private::bounds::WrittenMcpError { error })
        }
        Some(error) => {
            let span = error.span();
            let private = respan(private.clone(), span);
            quote_spanned!(span=> |error: #error| {
                #[allow(unused_imports)]
                use #private::bounds::{ViaFrom as _, ViaNothing as _, ViaStdError as _};
                (&&&#private::bounds::ErrorProbe::of(&error)).mcp_conversion().convert(error)
            })
        }
        None => quote!(::core::convert::Into::into),
    };
    // Without state to take first or a context lent to the handler, an async
    // handler's call goes through a generic function of the runtime instead of
    // an `async` block of its own, and its type is a named one, not an `impl
    // Future` for rustc to infer: less to check per tool.
    let lends_ctx = handler.params.iter().any(|param| matches!(param, Param::Ctx { by_ref: true, .. }));
    let through_runtime = states.is_empty() && !lends_ctx && handler.shape_ok;
    // An async handler's future is asserted `Send` at the handler, so a guard
    // held across an `.await` is reported there (`handler-future-send`), not at
    // the attribute: the fix at its name, rustc's pointer at the guard at its
    // `async`. Every token carries the span: a path of mixed spans is
    // reported at the attribute.
    let call = match handler.item.sig.asyncness {
        Some(asyncness) => {
            let (at_name, at_async) = (fn_ident.span(), asyncness.span);
            let checked = respan(quote!(#private::bounds::handler_future(#call)), at_name);
            let (boxed, convert) = match through_runtime {
                true => (quote!(#private::bounds::send_call), quote!(, #into_mcp_error)),
                false => (quote!(#private::bounds::send_handler), quote!()),
            };
            let boxed = respan(boxed, at_async);
            // Bound to a name at `async`, so rustc's own report (with the value
            // held across the `.await`) is not folded into the one at the name.
            let future = Ident::new("mcp_handler_future", at_async);
            quote_spanned!(at_async=> { let #future = #checked; #boxed(#future #convert) })
        }
        None => call,
    };
    let is_async = handler.item.sig.asyncness.is_some();
    // A typed context lent to the handler (`ctx: &Ctx`) lives in a local of
    // the call, as the future that borrows it is bound before it is awaited.
    let lent_ctx = handler
        .params
        .iter()
        .any(|param| matches!(param, Param::Ctx { by_ref: true, kind } if *kind != CtxKind::Untyped))
        .then(|| quote!(let typed_ctx = #private::typed_context(ctx);));
    let call = if !handler.shape_ok {
        // The handler's shape was reported; a stub keeps that the only error.
        quote!(async move { ::core::unreachable!("`#[mcp_tool]` reported a compile error for this handler") })
    } else if through_runtime && is_async {
        call
    } else if is_async {
        quote!(async move { #(#take_states)* #lent_ctx #call.await.map_err(#into_mcp_error) })
    } else {
        // A plain `fn` may compute for long: off the async workers, so it
        // delays no other call (see `run_blocking`).
        quote!(#private::run_blocking(move || { #(#take_states)* #lent_ctx #call.map_err(#into_mcp_error) }))
    };
    // A call through the runtime returns the named type of `send_call`,
    // which refines the trait's `impl Future`.
    let (call_type, refines) = match through_runtime && is_async {
        true => (quote!(#private::bounds::SentCall<'_, Self::Output>), quote!(#[allow(refining_impl_trait)])),
        false => (
            quote!(impl ::core::future::Future<Output = ::core::result::Result<Self::Output, #private::McpError>> + ::core::marker::Send),
            quote!(),
        ),
    };
    let input_param = if handler.input().is_some() { quote!(input) } else { quote!(_input) };
    let ctx_param = if handler.ctx().is_some() || !states.is_empty() { quote!(ctx) } else { quote!(_ctx) };
    let required_state = (!states.is_empty()).then(|| {
        let state_types = states.iter().map(|ty| {
            let private = respan(private.clone(), ty.span());
            quote_spanned!(ty.span()=> #private::StateType::of::<#ty>())
        });
        quote! {
            fn required_state(&self) -> &'static [#private::StateType] {
                const STATES: &[#private::StateType] = &[#(#state_types),*];
                STATES
            }
        }
    });

    let contents = tool.format.as_ref().map(|format| quote!(#private::IntoContents::into_contents(#format(&output))));
    let render = match (handler.text_only, contents) {
        (true, None) => quote!(::core::result::Result::Ok(#private::ToolOutput::text(output))),
        (true, Some(contents)) => {
            quote!(::core::result::Result::Ok(#private::ToolOutput::new(#contents)))
        }
        (false, None) => quote!(#private::bounds::structured::<#output>(&output, ::core::option::Option::None)),
        (false, Some(contents)) => {
            quote!(#private::bounds::structured::<#output>(&output, ::core::option::Option::Some(#contents)))
        }
    };
    // Format parity (runtime/src/lint) renders samples through `format`; only
    // tools with a `format` and a structured result have something to check.
    let sample_output = tool.format.as_ref().filter(|_| !handler.text_only).map(|format| {
        quote! {
            fn sample_output(&self, sample: #private::SampleValue) -> #private::OutputSample<Self::Output> {
                #[allow(unused_imports)]
                use #private::{DecodeSample as _, DecodeSampleFallback as _};
                (&#private::SampleProbe::<Self::Output>::new()).decode(sample)
            }

            fn format_function(&self) -> ::core::option::Option<&'static str> {
                ::core::option::Option::Some(::core::any::type_name_of_val(&#format))
            }
        }
    });

    // The definition is built through its constructor and only the setters of
    // what the attribute says, so the expansion stays small.
    let name = &tool.name;
    // A schema given as written is taken as it is; otherwise the type's, made portable.
    let input_schema = match &tool.input_schema {
        Some(given) => quote_spanned!(given.span()=> #private::bounds::given_schema(#given())),
        None => quote!(#private::bounds::input_schema::<#input>()),
    };
    let mut definition = quote!(#private::ToolDefinition::new(#name, #input_schema));
    if let Some(title) = &tool.title {
        definition.extend(quote!(.with_title(#title)));
    }
    if let Some(description) = &tool.description {
        definition.extend(quote!(.with_description(#description)));
    }
    match &tool.output_schema {
        Some(given) => {
            definition
                .extend(quote_spanned!(given.span()=> .with_output_schema(#private::bounds::given_schema(#given()))));
        }
        None if !handler.text_only => {
            definition.extend(quote!(.with_output_schema(#private::bounds::output_schema::<#output>())));
        }
        None => {}
    }
    if let Some(app) = &tool.app {
        definition.extend(quote!(.with_app(#app)));
    }
    if let Some(enrichment) = &tool.enrichment {
        let trailer = (!tool.trailer.is_empty()).then(|| {
            let trailer = trailer(&tool.trailer, private);
            quote!(.with_trailer(#trailer))
        });
        definition.extend(quote_spanned!(enrichment.span()=>
            .with_enrichment(#private::EnrichmentDefinition::new(#private::bounds::enrichment_schema::<#enrichment>()) #trailer)
        ));
    }
    let annotations = &tool.annotations;
    let mut hints = TokenStream::new();
    if let Some(title) = &annotations.title {
        hints.extend(quote!(.with_title(#title)));
    }
    for (value, setter) in [
        (annotations.read_only, "with_read_only_hint"),
        (annotations.destructive, "with_destructive_hint"),
        (annotations.idempotent, "with_idempotent_hint"),
        (annotations.open_world, "with_open_world_hint"),
    ] {
        if let Some(value) = value {
            let setter = format_ident!("{setter}");
            hints.extend(quote!(.#setter(#value)));
        }
    }
    if !hints.is_empty() {
        definition.extend(quote!(.with_annotations(#private::ToolAnnotations::new() #hints)));
    }
    let scopes = &tool.auth;
    if !scopes.is_empty() {
        definition.extend(quote!(.with_auth_scopes(&[#(#scopes),*])));
    }
    let requires = &tool.requires;
    if !requires.is_empty() {
        definition.extend(quote!(.with_requires(&[#(#private::Capability::#requires),*])));
    }
    if let Some(task) = &tool.task {
        let word = &task.support;
        let variant = format_ident!("{}", if word == "required" { "Required" } else { "Optional" }, span = word.span());
        definition.extend(quote!(.with_task_support(#private::TaskSupport::#variant)));
        if task.input_first.is_some() {
            definition.extend(quote!(.with_task_input_first()));
        }
    }
    if !tool.input_aliases.is_empty() {
        let entries = tool
            .input_aliases
            .iter()
            .map(|(field, aliases)| quote!(#private::InputAlias::new(#field, &[#(#aliases),*])));
        // A const, so the list is `'static` as the definition keeps it.
        definition.extend(quote!(.with_input_aliases({
            const INPUT_ALIASES: &[#private::InputAlias] = &[#(#entries),*];
            INPUT_ALIASES
        })));
    }
    if let Some(repair) = tool.repair_arguments {
        definition.extend(quote!(.with_argument_repair(#repair)));
    }
    if !tool.allowed_rules.is_empty() {
        let ids = &tool.allowed_rules;
        definition.extend(quote!(.with_allowed_rules(&[#(#ids),*])));
    }
    let errors = match &tool.contract {
        Some(_) => quote!(<#reason_type as #private::Reason>::CONTRACT),
        None => quote!(&[]),
    };
    if tool.contract.is_some() {
        definition.extend(quote!(.with_errors(#errors)));
    }

    quote! {
        #[automatically_derived]
        impl #private::Tool for #tool_ident {
            type Input = #input;
            type Output = #output;

            fn definition(&self) -> &'static #private::ToolDefinition {
                static DEFINITION: ::std::sync::OnceLock<#private::ToolDefinition> = ::std::sync::OnceLock::new();
                DEFINITION.get_or_init(|| #definition)
            }

            // The error conversion is a closure under the error type's span
            // (see `into_mcp_error`), which clippy would have be a path.
            #[allow(clippy::redundant_closure)]
            #refines
            fn call(
                &self,
                #input_param: Self::Input,
                #ctx_param: #private::Context,
            ) -> #call_type {
                #call
            }

            fn render(&self, output: Self::Output) -> ::core::result::Result<#private::ToolOutput, #private::McpError> {
                #render
            }

            #sample_output

            fn checked_at_compile_time(&self) -> bool {
                true
            }

            #required_state
        }

        #[automatically_derived]
        impl #tool_ident {
            /// A context of this tool for unit tests of its handler: the tool's
            /// name and contract, no client (what it sends is `captured()`);
            /// add a caller, state, capabilities with `with_caller(..)` and the rest.
            #[must_use]
            #vis fn test_ctx() -> #private::Ctx<#reason_type> {
                #private::typed_context(#private::Context::for_unit_test(#name, #errors))
            }
        }
    }
}

/// Whether the handler's error type is written `McpError`, as the prelude
/// names it.
fn names_mcp_error(error: &Type) -> bool {
    let Type::Path(path) = error else { return false };
    path.qself.is_none()
        && path.path.segments.len() == 1
        && path.path.segments[0].ident == "McpError"
        && path.path.segments[0].arguments.is_none()
}

/// The `&'static [TrailerField]` of the entries.
fn trailer(entries: &[TrailerEntry], private: &TokenStream) -> TokenStream {
    let fields = entries.iter().map(|TrailerEntry { key, label, render }| {
        let label = match label {
            Some(label) => quote!(::core::option::Option::Some(#label)),
            None => quote!(::core::option::Option::None),
        };
        // The author's function, coerced to the pointer the definition holds; a
        // wrong signature is rustc's error at the path.
        let render = match render {
            Some(path) => quote_spanned!(path.span()=> ::core::option::Option::Some(#path as fn(&_) -> _)),
            None => quote!(::core::option::Option::None),
        };
        quote!(#private::TrailerField { key: #key, label: #label, render: #render })
    });
    quote!({
        const TRAILER: &[#private::TrailerField] = &[#(#fields),*];
        TRAILER
    })
}
