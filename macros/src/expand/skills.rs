//! `embed_skills!("skills")`: a folder of agent skills read at compile time
//! into an `EmbeddedSkills`, every file through `include_bytes!` (so cargo
//! rebuilds when one changes) and checked as `Server::build` checks a folder
//! it reads at run time. Unlike the attribute macros, the input is one path
//! literal, so its three stages fit one file: read the folder, judge it, and
//! generate the table.
//!
//! Every problem is reported at the literal, all of them in one build:
//! a `SKILL.md` frontmatter the Agent Skills format does not allow
//! (`skill-frontmatter`), a symbolic link, special file or name that is not
//! UTF-8, or a `SKILL.md` at the folder's root (`skill-files`), a skill over
//! the extension's 512 files or 16 MiB (`skill-size-limit`).

use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::LitStr;

use crate::diag::Diagnostics;
use crate::rules::check::{
    FrontmatterValue, SkillEntry, SkillEntryKind, skill_entries, skill_folder_problems, skill_frontmatter,
    skill_frontmatter_block,
};

pub(crate) fn embed_skills(input: TokenStream, invoked_in: Option<&Path>) -> TokenStream {
    let literal: LitStr = match syn::parse2(input) {
        Ok(literal) => literal,
        Err(err) => {
            let message = format!("{err}: write the skills folder as a string literal, `embed_skills!(\"skills\")`");
            return syn::Error::new(err.span(), message).to_compile_error();
        }
    };
    let span = literal.span();
    // Absolute, so `include_bytes!` reads the same files wherever it is expanded.
    let root = resolve(&literal.value(), invoked_in);
    let root = fs::canonicalize(&root).unwrap_or(root);
    let entries = match skill_entries(&root) {
        Ok(entries) => entries,
        Err(err) => {
            let message = format!("the skills folder `{}` cannot be read: {err}", root.display());
            return syn::Error::new(span, message).to_compile_error();
        }
    };
    let mut diagnostics = Diagnostics::default();
    check(&entries, span, &mut diagnostics);
    if diagnostics.has_errors() {
        // In a block, so every error is a statement of its own and the
        // expression still has its type: the user sees these errors only.
        let errors = diagnostics.into_tokens(false);
        return quote! {{
            #errors
            ::mcp_contract::__private::EmbeddedSkills::__from_files("", &[])
        }};
    }
    let files = entries.iter().filter(|entry| matches!(entry.kind, SkillEntryKind::File { .. })).map(|entry| {
        let path = &entry.path;
        let absolute = entry.absolute.to_string_lossy().into_owned();
        quote! { (#path, ::core::include_bytes!(#absolute)) }
    });
    let folder = literal.value();
    quote! {
        ::mcp_contract::__private::EmbeddedSkills::__from_files(#folder, &[#(#files),*])
    }
}

/// `path` from the folder of the invoking file, as `include_bytes!` reads it;
/// from the crate's `Cargo.toml` where that file is none on disk (a doctest).
fn resolve(path: &str, invoked_in: Option<&Path>) -> PathBuf {
    let from_file = invoked_in.filter(|file| file.is_file()).and_then(Path::parent).map(|dir| dir.join(path));
    from_file.unwrap_or_else(|| Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join(path))
}

/// The rules of `Server::build` on a skills folder, reported at `span`.
fn check(entries: &[SkillEntry], span: Span, diagnostics: &mut Diagnostics) {
    let kinds: Vec<(&str, SkillEntryKind)> = entries.iter().map(|entry| (entry.path.as_str(), entry.kind)).collect();
    let manifest = |path: &str, folder: &str| {
        let absolute = entries.iter().find(|entry| entry.path == path).map(|entry| entry.absolute.as_path());
        frontmatter_problems(&absolute.and_then(|file| fs::read(file).ok()).unwrap_or_default(), folder)
    };
    for (rule, message) in skill_folder_problems(&kinds, manifest) {
        diagnostics.rule_error(rule, span, message);
    }
}

/// The frontmatter's problems, read with the YAML parser the runtime reads it with.
fn frontmatter_problems(bytes: &[u8], folder: &str) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(bytes) else { return vec!["the file is not UTF-8".into()] };
    let Some(block) = skill_frontmatter_block(text) else {
        return vec!["the file does not start with a frontmatter block between `---` lines: begin it with `---`, `name: ..`, `description: ..`, `---`".into()];
    };
    let fields = match yaml_serde::from_str::<yaml_serde::Value>(block) {
        Ok(yaml_serde::Value::Mapping(fields)) => fields,
        Ok(_) => return vec!["the frontmatter is no mapping of keys to values".into()],
        Err(err) => return vec![format!("the frontmatter is no valid YAML: {err}")],
    };
    let keys: Vec<(String, &yaml_serde::Value)> = fields
        .iter()
        .map(|(key, value)| (key.as_str().map_or_else(|| format!("{key:?}"), str::to_owned), value))
        .collect();
    let shapes: Vec<(&str, FrontmatterValue<'_>)> = keys
        .iter()
        .map(|(key, value)| {
            let shape = match value {
                yaml_serde::Value::String(text) => FrontmatterValue::Text(text),
                yaml_serde::Value::Mapping(_) => FrontmatterValue::Mapping,
                _ => FrontmatterValue::Other,
            };
            (key.as_str(), shape)
        })
        .collect();
    skill_frontmatter(&shapes, folder)
}
