//! `elicitation-form-flat` for the two derives: what shape of item each goes
//! on. The fields' types are judged by rustc, through the bounds the
//! expansion puts on them (`FormField`), which see types declared anywhere.

use syn::spanned::Spanned;
use syn::{Data, Fields, Type};

use crate::diag::Diagnostics;
use crate::parse::form::FormItem;
use crate::rules;

/// What `#[derive(FormField)]` makes of its item.
pub(crate) enum FieldShape<'a> {
    /// An enum of unit variants: a single-select, and an option of a multi-select.
    Choice,
    /// A newtype struct: a field of what it wraps.
    Newtype(&'a Type),
}

/// `#[derive(ElicitForm)]` goes on a struct with named fields.
pub(crate) fn check_form(item: &FormItem<'_>, diag: &mut Diagnostics) {
    let input = item.original;
    let name = &input.ident;
    match &input.data {
        Data::Struct(data) if matches!(data.fields, Fields::Named(_)) => {}
        Data::Enum(_) => diag.rule_error(
            rules::ELICITATION_FORM_FLAT,
            name.span(),
            format_args!(
                "`#[derive(ElicitForm)]` goes on a struct with named fields: an enum is a field of a form, not a form; \
                 derive `FormField` on `{name}` and ask for a struct holding it (`struct Answer {{ choice: {name} }}`)"
            ),
        ),
        _ => diag.rule_error(
            rules::ELICITATION_FORM_FLAT,
            name.span(),
            format_args!(
                "`#[derive(ElicitForm)]` goes on a struct with named fields: an elicitation form asks for one object \
                 (`struct {name} {{ name: String }}`)"
            ),
        ),
    }
}

/// `#[derive(FormField)]` goes on an enum of unit variants or a newtype struct.
pub(crate) fn check_field<'a>(item: &FormItem<'a>, diag: &mut Diagnostics) -> Option<FieldShape<'a>> {
    let input = item.original;
    let name = &input.ident;
    match &input.data {
        Data::Enum(data) => {
            let mut unit = true;
            for variant in data.variants.iter().filter(|variant| !matches!(variant.fields, Fields::Unit)) {
                unit = false;
                let variant_name = &variant.ident;
                diag.rule_error(
                    rules::ELICITATION_FORM_FLAT,
                    variant.fields.span(),
                    format_args!(
                        "variant `{variant_name}` of `{name}` carries data: a form's enum is a choice of unit \
                         variants; ask for the data as fields of the form, or in an elicitation of its own"
                    ),
                );
            }
            unit.then_some(FieldShape::Choice)
        }
        Data::Struct(data) if data.fields.len() == 1 && matches!(data.fields, Fields::Unnamed(_)) => {
            data.fields.iter().next().map(|field| FieldShape::Newtype(&field.ty))
        }
        _ => {
            diag.rule_error(
                rules::ELICITATION_FORM_FLAT,
                name.span(),
                format_args!(
                    "`#[derive(FormField)]` goes on an enum of unit variants (a choice) or a newtype struct \
                     (`struct {name}(String)`); a struct of fields is a nested object, which a form cannot hold: \
                     flatten its fields into the form"
                ),
            );
            None
        }
    }
}
