//! The template grammar of RFC 6570 §2, with the byte offset of every error.

use std::fmt;

use crate::encoding::{is_literal_char, is_pct_triplet, push_pct};
use crate::{Expression, Modifier, Operator, Part, UriTemplate, Variable};

/// Why a template does not parse, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    offset: usize,
    kind: ParseErrorKind,
}

/// What is wrong with a template.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A `{` without its `}`.
    UnclosedExpression,
    /// A `}` outside an expression.
    UnopenedExpression,
    /// A `{` inside an expression.
    NestedExpression,
    /// `{}`, or an expression with only an operator.
    EmptyExpression,
    /// An operator RFC 6570 reserves for future extensions: `=`, `!`, `@`, `|`.
    ReservedOperator(char),
    /// A character that no variable name may hold.
    InvalidVariableChar(char),
    /// An empty variable name, as in `{a,}`.
    EmptyVariableName,
    /// A `.` at the start or end of a variable name, or two in a row.
    MisplacedDot,
    /// A `%` that does not start a triplet such as `%20`.
    InvalidPercentEncoding,
    /// A `:` not followed by a length from 1 to 9999.
    InvalidPrefix,
    /// A character after a modifier other than `,` or `}`.
    UnexpectedAfterModifier(char),
    /// A character that literal text may not hold.
    InvalidLiteral(char),
}

impl ParseError {
    fn new(offset: usize, kind: ParseErrorKind) -> Self {
        Self { offset, kind }
    }

    /// The byte offset in the template of the character at fault.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What is wrong.
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }

    /// What is wrong and how to fix it, lowercase, without the offset.
    pub fn message(&self) -> String {
        match &self.kind {
            ParseErrorKind::UnclosedExpression => {
                "this `{` opens an expression that is never closed; add `}`".to_owned()
            }
            ParseErrorKind::UnopenedExpression => {
                "`}` outside an expression; remove it, or write it as `%7D` in literal text".to_owned()
            }
            ParseErrorKind::NestedExpression => {
                "`{` inside an expression; expressions cannot nest, close the first with `}`".to_owned()
            }
            ParseErrorKind::EmptyExpression => "empty expression; name a variable, as in `{id}`".to_owned(),
            ParseErrorKind::ReservedOperator(op) => format!(
                "operator `{op}` is reserved by RFC 6570 for future extensions; use one of `+ # . / ; ? &` or none"
            ),
            ParseErrorKind::InvalidVariableChar(c) => format!(
                "`{c}` cannot appear in a variable name; use letters, digits, `_`, `.` between characters, or `%XX`"
            ),
            ParseErrorKind::EmptyVariableName => "empty variable name; remove the extra `,`".to_owned(),
            ParseErrorKind::MisplacedDot => {
                "`.` in a variable name must sit between two name characters, as in `{a.b}`".to_owned()
            }
            ParseErrorKind::InvalidPercentEncoding => {
                "`%` must start a percent-encoded byte such as `%20`; write a literal `%` as `%25`".to_owned()
            }
            ParseErrorKind::InvalidPrefix => {
                "a prefix modifier needs a length from 1 to 9999, as in `{id:3}`".to_owned()
            }
            ParseErrorKind::UnexpectedAfterModifier(c) => {
                format!("unexpected `{c}` after the modifier; a modifier ends a variable, follow it with `,` or `}}`")
            }
            ParseErrorKind::InvalidLiteral(c) => {
                let mut encoded = String::new();
                for byte in c.to_string().bytes() {
                    push_pct(&mut encoded, byte);
                }
                format!("`{}` cannot appear in a URI template; percent-encode it as `{encoded}`", c.escape_debug())
            }
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid URI template at byte {}: {}", self.offset, self.message())
    }
}

impl std::error::Error for ParseError {}

impl UriTemplate {
    /// Parse a template (RFC 6570 levels 1 to 4).
    ///
    /// # Errors
    ///
    /// A [`ParseError`] with the byte offset of the first character at fault.
    pub fn parse(source: &str) -> Result<Self, ParseError> {
        let bytes = source.as_bytes();
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = source.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' => {
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    let close = expression_end(source, at)?;
                    parts.push(Part::Expression(parse_expression(source, at, close)?));
                    while chars.next_if(|&(next, _)| next <= close).is_some() {}
                }
                '}' => return Err(ParseError::new(at, ParseErrorKind::UnopenedExpression)),
                '%' => {
                    if !is_pct_triplet(bytes, at) {
                        return Err(ParseError::new(at, ParseErrorKind::InvalidPercentEncoding));
                    }
                    literal.push_str(&source[at..at + 3]);
                    chars.next();
                    chars.next();
                }
                c if c.is_ascii() && is_literal_char(c) => literal.push(c),
                c if is_literal_char(c) => {
                    // Allowed in a template, but not in a URI: expansion encodes it.
                    let mut utf8 = [0; 4];
                    for &byte in c.encode_utf8(&mut utf8).as_bytes() {
                        push_pct(&mut literal, byte);
                    }
                }
                c => return Err(ParseError::new(at, ParseErrorKind::InvalidLiteral(c))),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        let mut template = Self { source: source.into(), parts, repeated_names: false };
        let names: Vec<&str> = template.variables().map(Variable::name).collect();
        template.repeated_names = (1..names.len()).any(|i| names[..i].contains(&names[i]));
        Ok(template)
    }
}

/// The offset of the `}` closing the expression opened at `open`.
fn expression_end(source: &str, open: usize) -> Result<usize, ParseError> {
    for (at, byte) in source.bytes().enumerate().skip(open + 1) {
        match byte {
            b'}' => return Ok(at),
            b'{' => return Err(ParseError::new(at, ParseErrorKind::NestedExpression)),
            _ => {}
        }
    }
    Err(ParseError::new(open, ParseErrorKind::UnclosedExpression))
}

/// `expression = "{" [ operator ] variable-list "}"`, between `open` and `close`.
fn parse_expression(source: &str, open: usize, close: usize) -> Result<Expression, ParseError> {
    let bytes = source.as_bytes();
    let mut at = open + 1;
    let operator = match source[at..close].chars().next() {
        None => return Err(ParseError::new(open, ParseErrorKind::EmptyExpression)),
        // RFC 6570 reserves `,` as an operator too, but `{,a}` is a missing name far more often.
        Some(',') => return Err(ParseError::new(at, ParseErrorKind::EmptyVariableName)),
        Some(c @ ('=' | '!' | '@' | '|')) => return Err(ParseError::new(at, ParseErrorKind::ReservedOperator(c))),
        Some(c) => match Operator::from_char(c) {
            Some(operator) => {
                at += 1;
                operator
            }
            None => Operator::Simple,
        },
    };
    if at == close {
        return Err(ParseError::new(open, ParseErrorKind::EmptyExpression));
    }
    let mut variables = Vec::new();
    loop {
        let (variable, end) = parse_varspec(source, at, close, operator)?;
        variables.push(variable);
        if end == close {
            return Ok(Expression { operator, variables });
        }
        // parse_varspec stops at `,` or `}` only.
        debug_assert_eq!(bytes[end], b',');
        at = end + 1;
    }
}

/// `varspec = varname [ modifier-level4 ]` from `start`; returns the variable and
/// the offset of the `,` or `}` after it.
fn parse_varspec(
    source: &str,
    start: usize,
    close: usize,
    operator: Operator,
) -> Result<(Variable, usize), ParseError> {
    let bytes = source.as_bytes();
    let mut at = start;
    // varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded
    let mut last_was_dot = true;
    while at < close {
        let byte = bytes[at];
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' => {
                at += 1;
                last_was_dot = false;
            }
            b'%' => {
                if !is_pct_triplet(bytes, at) {
                    return Err(ParseError::new(at, ParseErrorKind::InvalidPercentEncoding));
                }
                at += 3;
                last_was_dot = false;
            }
            b'.' => {
                if last_was_dot {
                    return Err(ParseError::new(at, ParseErrorKind::MisplacedDot));
                }
                at += 1;
                last_was_dot = true;
            }
            b',' | b':' | b'*' => break,
            _ => {
                let c = source[at..].chars().next().unwrap_or('\u{FFFD}');
                return Err(ParseError::new(at, ParseErrorKind::InvalidVariableChar(c)));
            }
        }
    }
    if at == start {
        return Err(ParseError::new(start, ParseErrorKind::EmptyVariableName));
    }
    if last_was_dot {
        return Err(ParseError::new(at - 1, ParseErrorKind::MisplacedDot));
    }
    let name = source[start..at].to_owned();
    let modifier = match bytes.get(at) {
        Some(b'*') if at < close => {
            at += 1;
            Modifier::Explode
        }
        Some(b':') if at < close => {
            let digits = at + 1;
            let mut end = digits;
            while end < close && bytes[end].is_ascii_digit() {
                end += 1;
            }
            let length = &source[digits..end];
            let valid = !length.is_empty() && length.len() <= 4 && !length.starts_with('0');
            let Some(length) = length.parse::<u16>().ok().filter(|_| valid) else {
                return Err(ParseError::new(digits.min(close), ParseErrorKind::InvalidPrefix));
            };
            at = end;
            Modifier::Prefix(length)
        }
        _ => Modifier::None,
    };
    if at < close && bytes[at] != b',' {
        let c = source[at..].chars().next().unwrap_or('\u{FFFD}');
        return Err(ParseError::new(at, ParseErrorKind::UnexpectedAfterModifier(c)));
    }
    Ok((Variable { name, modifier, operator, offset: start }, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(template: &str) -> (usize, ParseErrorKind) {
        let err = UriTemplate::parse(template).unwrap_err();
        (err.offset(), err.kind().clone())
    }

    #[test]
    fn errors_point_at_the_character_at_fault() {
        use ParseErrorKind::*;
        assert_eq!(error("museum://objects/{object id}"), (24, InvalidVariableChar(' ')));
        assert_eq!(error("a{b"), (1, UnclosedExpression));
        assert_eq!(error("a}b"), (1, UnopenedExpression));
        assert_eq!(error("{a{b}}"), (2, NestedExpression));
        assert_eq!(error("x{}"), (1, EmptyExpression));
        assert_eq!(error("x{+}"), (1, EmptyExpression));
        assert_eq!(error("{=a}"), (1, ReservedOperator('=')));
        assert_eq!(error("{|a}"), (1, ReservedOperator('|')));
        assert_eq!(error("{a,}"), (3, EmptyVariableName));
        assert_eq!(error("{,a}"), (1, EmptyVariableName));
        assert_eq!(error("{.a.}"), (3, MisplacedDot));
        assert_eq!(error("{a..b}"), (3, MisplacedDot));
        assert_eq!(error("{a%2}"), (2, InvalidPercentEncoding));
        assert_eq!(error("50%zz"), (2, InvalidPercentEncoding));
        assert_eq!(error("{a:}"), (3, InvalidPrefix));
        assert_eq!(error("{a:0}"), (3, InvalidPrefix));
        assert_eq!(error("{a:10000}"), (3, InvalidPrefix));
        assert_eq!(error("{a*b}"), (3, UnexpectedAfterModifier('b')));
        assert_eq!(error("{a:3*}"), (4, UnexpectedAfterModifier('*')));
        assert_eq!(error("a b"), (1, InvalidLiteral(' ')));
        assert_eq!(error("a<b"), (1, InvalidLiteral('<')));
        assert_eq!(error("é{ü}"), (3, InvalidVariableChar('ü')));
    }

    #[test]
    fn messages_say_how_to_fix() {
        let err = UriTemplate::parse("a b").unwrap_err();
        assert_eq!(err.message(), "` ` cannot appear in a URI template; percent-encode it as `%20`");
        assert_eq!(
            err.to_string(),
            "invalid URI template at byte 1: ` ` cannot appear in a URI template; percent-encode it as `%20`"
        );
    }

    #[test]
    fn variables_carry_operator_modifier_and_offset() {
        let template = UriTemplate::parse("x{/a,b:3}{?c*}{a}").unwrap();
        let seen: Vec<_> = template.variables().map(|v| (v.name(), v.operator(), v.modifier(), v.offset())).collect();
        assert_eq!(
            seen,
            [
                ("a", Operator::Path, Modifier::None, 3),
                ("b", Operator::Path, Modifier::Prefix(3), 5),
                ("c", Operator::Query, Modifier::Explode, 11),
                ("a", Operator::Simple, Modifier::None, 15),
            ]
        );
        assert_eq!(template.variable_names(), ["a", "b", "c"]);
        assert!(!template.is_static());
        assert!(UriTemplate::parse("museum://about").unwrap().is_static());
    }

    #[test]
    fn literals_outside_uris_are_kept_encoded() {
        let template = UriTemplate::parse("caf\u{e9}/%41{x}").unwrap();
        assert_eq!(template.parts[0], Part::Literal("caf%C3%A9/%41".to_owned()));
        assert_eq!(template.as_str(), "caf\u{e9}/%41{x}");
    }
}
