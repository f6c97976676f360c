//! The content blocks of a result: what the model reads of a tool's result and
//! a prompt's messages (MCP `ContentBlock`).

use serde::Serialize;

/// A content block of a tool result: what the model reads (MCP `ContentBlock`).
///
/// Serializes as MCP writes it on the wire.
///
/// ```
/// use mcp_contract::content::{Content, EmbeddedResource, ResourceLink};
///
/// let record = r#"{"title": "Wheat Field with Cypresses"}"#;
/// let blocks = vec![
///     Content::text("Wheat Field with Cypresses, Vincent van Gogh, 1889."),
///     Content::resource(EmbeddedResource::text("museum://objects/436535", record).with_mime_type("application/json")),
///     Content::resource_link(ResourceLink::new("museum://objects/436535/image", "image-436535").with_mime_type("image/jpeg")),
/// ];
/// assert_eq!(
///     serde_json::to_value(&blocks[2]).unwrap(),
///     serde_json::json!({
///         "type": "resource_link",
///         "uri": "museum://objects/436535/image",
///         "name": "image-436535",
///         "mimeType": "image/jpeg"
///     })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A resource's contents, embedded in the result (MCP `EmbeddedResource`).
    Resource {
        /// The contents, with the resource's URI.
        resource: EmbeddedResource,
    },
    /// A link to a resource the client may read (MCP `ResourceLink`).
    ResourceLink(ResourceLink),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// An image block from its bytes, base64-encoded here, and its MIME type.
    ///
    /// ```
    /// use mcp_contract::content::Content;
    /// let png = [0x89, b'P', b'N', b'G'];
    /// assert_eq!(Content::image(png, "image/png"), Content::image_base64("iVBORw==", "image/png"));
    /// ```
    pub fn image(bytes: impl Binary, mime_type: impl Into<String>) -> Self {
        Self::Image { data: base64(bytes.as_binary()), mime_type: mime_type.into() }
    }

    /// An image block from data already base64-encoded (standard alphabet,
    /// padded), taken as it is, and its MIME type.
    pub fn image_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image { data: data.into(), mime_type: mime_type.into() }
    }

    /// An audio block from its bytes, base64-encoded here, and its MIME type.
    pub fn audio(bytes: impl Binary, mime_type: impl Into<String>) -> Self {
        Self::Audio { data: base64(bytes.as_binary()), mime_type: mime_type.into() }
    }

    /// An audio block from data already base64-encoded, taken as it is, and its MIME type.
    pub fn audio_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio { data: data.into(), mime_type: mime_type.into() }
    }

    /// A resource's contents, embedded.
    pub fn resource(resource: EmbeddedResource) -> Self {
        Self::Resource { resource }
    }

    /// A link to a resource.
    pub fn resource_link(link: ResourceLink) -> Self {
        Self::ResourceLink(link)
    }
}

/// The contents of a resource embedded in a tool result: MCP's
/// `TextResourceContents` or `BlobResourceContents`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum EmbeddedResource {
    /// Text.
    Text {
        /// The resource's URI.
        uri: String,
        /// MIME type, e.g. `application/json`.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary data, base64-encoded.
    Blob {
        /// The resource's URI.
        uri: String,
        /// MIME type, e.g. `application/pdf`.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 data.
        blob: String,
    },
}

impl EmbeddedResource {
    /// The text of the resource at `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self::Text { uri: uri.into(), mime_type: None, text: text.into() }
    }

    /// The binary contents of the resource at `uri`, from its bytes, base64-encoded here.
    pub fn blob(uri: impl Into<String>, bytes: impl Binary) -> Self {
        Self::Blob { uri: uri.into(), mime_type: None, blob: base64(bytes.as_binary()) }
    }

    /// The binary contents of the resource at `uri`, already base64-encoded, taken as they are.
    pub fn blob_base64(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        Self::Blob { uri: uri.into(), mime_type: None, blob: blob.into() }
    }

    /// Set the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        match &mut self {
            Self::Text { mime_type: slot, .. } | Self::Blob { mime_type: slot, .. } => *slot = Some(mime_type.into()),
        }
        self
    }
}

/// A link to a resource the client may read (MCP `ResourceLink`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// A human-readable title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource holds, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

impl ResourceLink {
    /// A link to the resource at `uri`, named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self { uri: uri.into(), name: name.into(), title: None, description: None, mime_type: None }
    }

    /// Set the human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Set what the resource holds.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Set the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// What a `format = ..` function may return: a text, or content blocks.
pub trait IntoContents {
    /// The content blocks.
    fn into_contents(self) -> Vec<Content>;
}

impl IntoContents for String {
    fn into_contents(self) -> Vec<Content> {
        vec![Content::text(self)]
    }
}

impl IntoContents for &str {
    fn into_contents(self) -> Vec<Content> {
        vec![Content::text(self)]
    }
}

impl IntoContents for Content {
    fn into_contents(self) -> Vec<Content> {
        vec![self]
    }
}

impl IntoContents for Vec<Content> {
    fn into_contents(self) -> Vec<Content> {
        self
    }
}

/// Binary data a constructor encodes as base64: bytes, in any of the usual
/// containers. Text is none: a constructor that takes bytes (`Content::image`,
/// `ResourceContent::blob`, `PromptMessage::image`) would encode base64 text a
/// second time, so data already in base64 goes to its `_base64` twin.
///
/// ```
/// use mcp_contract::content::Content;
/// let bytes: Vec<u8> = vec![1, 2, 3];
/// let _ = Content::image(&bytes, "image/png");
/// let _ = Content::image(bytes, "image/png");
/// let _ = Content::image(b"GIF89a", "image/gif");
/// ```
///
/// ```compile_fail
/// use mcp_contract::content::Content;
/// let _ = Content::image("iVBORw==", "image/png"); // base64 text: `Content::image_base64`
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is no binary data: this constructor takes the bytes and encodes them as base64",
    label = "bytes expected here",
    note = "for data already in base64, call the constructor's `_base64` twin: `Content::image_base64(data, mime_type)`, `Content::audio_base64`, `EmbeddedResource::blob_base64`, `ResourceContent::blob_base64`, `PromptMessage::image_base64`"
)]
pub trait Binary {
    /// The bytes.
    fn as_binary(&self) -> &[u8];
}

impl Binary for [u8] {
    fn as_binary(&self) -> &[u8] {
        self
    }
}

impl<const N: usize> Binary for [u8; N] {
    fn as_binary(&self) -> &[u8] {
        self
    }
}

impl Binary for Vec<u8> {
    fn as_binary(&self) -> &[u8] {
        self
    }
}

impl Binary for Box<[u8]> {
    fn as_binary(&self) -> &[u8] {
        self
    }
}

impl Binary for std::borrow::Cow<'_, [u8]> {
    fn as_binary(&self) -> &[u8] {
        self
    }
}

impl<T: Binary + ?Sized> Binary for &T {
    fn as_binary(&self) -> &[u8] {
        (**self).as_binary()
    }
}

/// Standard base64 with padding (RFC 4648 §4), as MCP's `blob` and image `data` are.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &byte)| n | u32::from(byte) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 0x3F) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
