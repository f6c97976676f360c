//! Which of the three attributes a handler carries. Its parameters, its error
//! contract and the type generated for it mean the same under all three; the
//! words of a diagnostic or a doc differ, and they are here.

/// The attribute a handler carries.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// `mcp_tool`, `mcp_resource` or `mcp_prompt`.
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Self::Tool => "mcp_tool",
            Self::Resource => "mcp_resource",
            Self::Prompt => "mcp_prompt",
        }
    }

    /// `tool`, `resource` or `prompt`.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
        }
    }

    /// What the handler returns, for `handler-signature`.
    pub(crate) fn returns(self) -> &'static str {
        match self {
            Self::Tool => "`Result<Output, McpError>`",
            Self::Resource => {
                "`Result<ReadResourceResult, McpError>` (or any `Ok` type that converts into `ReadResourceResult`, such as `String`)"
            }
            Self::Prompt => "`Result<Vec<PromptMessage>, McpError>`",
        }
    }

    /// What a description says, for `description-required`.
    pub(crate) fn describes(self) -> &'static str {
        match self {
            Self::Tool => "what it does and when to use it",
            Self::Resource => "what it holds",
            Self::Prompt => "what it is for",
        }
    }
}
