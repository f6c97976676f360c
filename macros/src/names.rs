//! The names the macros derive from the user's: a reason's variant from its
//! snake_case name, a generated type from the handler's name.

use proc_macro2::Ident;
use quote::format_ident;
use syn::ext::IdentExt;

/// `NotInCollection` -> `not_in_collection`: the fix `error-contract-reason-format`
/// suggests. Runs of separators fold into one underscore.
pub(crate) fn to_snake_case(name: &str) -> String {
    let mut snake = String::new();
    for (index, ch) in name.chars().enumerate() {
        if ch.is_uppercase() {
            if index > 0 {
                snake.push('_');
            }
            snake.extend(ch.to_lowercase());
        } else if ch == '-' || ch == ' ' {
            snake.push('_');
        } else {
            snake.push(ch);
        }
    }
    snake.split('_').filter(|word| !word.is_empty()).collect::<Vec<_>>().join("_")
}

/// `not_in_collection` -> `NotInCollection`: a reason's variant, a handler's type.
pub(crate) fn to_pascal_case(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
        })
        .collect()
}

/// The generated type of a tool, resource or prompt: the name given
/// (`tool_type = ..`, `resource_type = ..`, `prompt_type = ..`), or the
/// handler's in PascalCase, at the handler's name.
pub(crate) fn type_name(given: Option<Ident>, fn_ident: &Ident) -> Ident {
    given.unwrap_or_else(|| format_ident!("{}", to_pascal_case(&fn_ident.unraw().to_string()), span = fn_ident.span()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(to_snake_case("NotInCollection"), "not_in_collection");
        assert_eq!(to_snake_case("not__found_"), "not_found");
        assert_eq!(to_snake_case("rate-limited"), "rate_limited");
        assert_eq!(to_pascal_case("not_in_collection"), "NotInCollection");
        assert_eq!(to_pascal_case("NotFound"), "NotFound");
    }
}
