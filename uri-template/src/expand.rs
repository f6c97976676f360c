//! Expansion (RFC 6570 §3.2).

use std::collections::{BTreeMap, HashMap};

use crate::encoding::{encode_value, prefix};
use crate::{Expression, Modifier, Part, UriTemplate, Value};

/// Where expansion looks variables up.
pub trait Variables {
    /// The value of `name`, `None` when it is undefined.
    fn get(&self, name: &str) -> Option<&Value>;
}

impl<S: std::hash::BuildHasher> Variables for HashMap<String, Value, S> {
    fn get(&self, name: &str) -> Option<&Value> {
        HashMap::get(self, name)
    }
}

impl Variables for BTreeMap<String, Value> {
    fn get(&self, name: &str) -> Option<&Value> {
        BTreeMap::get(self, name)
    }
}

impl<K: AsRef<str>> Variables for [(K, Value)] {
    fn get(&self, name: &str) -> Option<&Value> {
        self.iter().find(|(key, _)| key.as_ref() == name).map(|(_, value)| value)
    }
}

impl<K: AsRef<str>, const N: usize> Variables for [(K, Value); N] {
    fn get(&self, name: &str) -> Option<&Value> {
        Variables::get(self.as_slice(), name)
    }
}

impl<K: AsRef<str>> Variables for Vec<(K, Value)> {
    fn get(&self, name: &str) -> Option<&Value> {
        Variables::get(self.as_slice(), name)
    }
}

impl UriTemplate {
    /// Expand the template with `variables` (RFC 6570 §3).
    ///
    /// ```
    /// use mcp_contract_uri_template::{UriTemplate, Value};
    /// let template = UriTemplate::parse("{/path*}{?q}").unwrap();
    /// let path = Value::List(vec!["a b".into(), "c".into()]);
    /// assert_eq!(template.expand(&[("path", path), ("q", "x&y".into())]), "/a%20b/c?q=x%26y");
    /// ```
    pub fn expand(&self, variables: &(impl Variables + ?Sized)) -> String {
        let mut out = String::with_capacity(self.source.len() * 2);
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Expression(expression) => expand_expression(&mut out, expression, variables),
            }
        }
        out
    }
}

fn expand_expression(out: &mut String, expression: &Expression, variables: &(impl Variables + ?Sized)) {
    let behaviour = expression.operator.behaviour();
    let allow = behaviour.allow_reserved;
    let mut first = true;
    for variable in &expression.variables {
        let Some(value) = variables.get(&variable.name).filter(|value| value.is_defined()) else { continue };
        if first {
            if let Some(first) = behaviour.first {
                out.push(char::from(first));
            }
            first = false;
        } else {
            out.push(char::from(behaviour.separator));
        }
        let name = variable.name.as_str();
        match (value, variable.modifier) {
            (Value::String(text), modifier) => {
                if behaviour.named {
                    out.push_str(name);
                    if text.is_empty() {
                        out.push_str(behaviour.if_empty);
                        continue;
                    }
                    out.push('=');
                }
                let text = match modifier {
                    Modifier::Prefix(max) => prefix(text, usize::from(max), allow),
                    Modifier::None | Modifier::Explode => text,
                };
                encode_value(out, text, allow);
            }
            // Prefix modifiers do not apply to composite values (§2.4.1).
            (Value::List(items), Modifier::None | Modifier::Prefix(_)) => {
                if behaviour.named {
                    out.push_str(name);
                    out.push('=');
                }
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    encode_value(out, item, allow);
                }
            }
            (Value::Map(pairs), Modifier::None | Modifier::Prefix(_)) => {
                if behaviour.named {
                    out.push_str(name);
                    out.push('=');
                }
                for (index, (key, item)) in pairs.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    encode_value(out, key, allow);
                    out.push(',');
                    encode_value(out, item, allow);
                }
            }
            (Value::List(items), Modifier::Explode) => {
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(char::from(behaviour.separator));
                    }
                    if behaviour.named {
                        out.push_str(name);
                        if item.is_empty() {
                            out.push_str(behaviour.if_empty);
                            continue;
                        }
                        out.push('=');
                    }
                    encode_value(out, item, allow);
                }
            }
            (Value::Map(pairs), Modifier::Explode) => {
                for (index, (key, item)) in pairs.iter().enumerate() {
                    if index > 0 {
                        out.push(char::from(behaviour.separator));
                    }
                    encode_value(out, key, allow);
                    if behaviour.named && item.is_empty() {
                        out.push_str(behaviour.if_empty);
                        continue;
                    }
                    out.push('=');
                    encode_value(out, item, allow);
                }
            }
        }
    }
}
