//! [`EmbeddedSkills`]: a folder of agent skills read into the binary at
//! compile time by `embed_skills!`, so a deployed server serves them with no
//! file beside it.

/// The files of a skills folder, embedded at compile time by
/// `mcp_contract::embed_skills!("skills")`, which checks them as
/// [`Server::build`](crate::server::Server::build) checks a folder read at run
/// time (`skill-frontmatter`, `skill-files`, `skill-size-limit`), and served
/// with [`Server::skills`](crate::server::Server::skills).
#[derive(Clone, Copy, Debug)]
pub struct EmbeddedSkills {
    folder: &'static str,
    files: &'static [(&'static str, &'static [u8])],
}

impl EmbeddedSkills {
    /// The files, each with its path below the folder (`/`-separated): what
    /// `embed_skills!` expands to; write the macro instead.
    #[doc(hidden)]
    pub const fn __from_files(folder: &'static str, files: &'static [(&'static str, &'static [u8])]) -> Self {
        Self { folder, files }
    }

    /// The folder the files were read from, when the binary was built.
    pub fn folder(&self) -> &'static str {
        self.folder
    }

    /// Each file's path below the folder and its bytes, in path order.
    pub fn files(&self) -> &'static [(&'static str, &'static [u8])] {
        self.files
    }
}
