//! [`PrimitiveKind`]: tool, resource or prompt, the three kinds of things a
//! server offers.

use std::fmt;

/// The three kinds of things a server offers, which share one namespace of names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveKind {
    /// A tool.
    Tool,
    /// A resource or resource template.
    Resource,
    /// A prompt.
    Prompt,
}

impl fmt::Display for PrimitiveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
        })
    }
}
