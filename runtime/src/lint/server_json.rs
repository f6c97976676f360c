//! The `server-json-*` rules: a `server.json` manifest of the MCP registry
//! (name, description, version, repository, packages with their transport,
//! arguments and environment variables, remotes), as the reference checks it,
//! with `server-json-version-sync` against the crate's version instead of
//! `package.json`'s.
//!
//! Every field is checked on its own, so one wrong field never hides another.

use serde_json::Value;

use super::{DefinitionKind, Diagnostic, Rule};
use crate::error::JsonObject;
use mcp_contract_rules::*;

/// Transport types a package may use.
const TRANSPORT_TYPES: [&str; 3] = ["stdio", "streamable-http", "sse"];
/// Transport types a remote may use.
const REMOTE_TYPES: [&str; 2] = ["streamable-http", "sse"];
/// Formats of an argument or environment variable.
const INPUT_FORMATS: [&str; 4] = ["string", "number", "boolean", "filepath"];
/// Registries truncate longer descriptions.
const MAX_DESCRIPTION: usize = 100;

pub(super) fn check(text: &str, crate_version: Option<&str>, out: &mut Vec<Diagnostic>) {
    let mut lint = Lint { name: "server.json".to_owned(), out };
    let manifest = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(manifest)) => manifest,
        Ok(other) => {
            let found = json_type(&other);
            lint.report(SERVER_JSON_TYPE, "", format!("server.json is {found}, not a JSON object"));
            return;
        }
        Err(err) => {
            lint.report(
                SERVER_JSON_PARSE,
                "",
                format!("server.json is not valid JSON ({err}): fix its syntax; no other rule can read it until then"),
            );
            return;
        }
    };
    if let Some(name) = manifest.get("name").and_then(Value::as_str).filter(|name| !name.is_empty()) {
        name.clone_into(&mut lint.name);
    }
    lint.name_rules(&manifest);
    lint.description_rules(&manifest);
    let version = lint.version_rules(&manifest, crate_version);
    lint.repository_rules(&manifest);
    lint.package_rules(&manifest, version.as_deref());
    lint.remote_rules(&manifest);
}

struct Lint<'a> {
    name: String,
    out: &'a mut Vec<Diagnostic>,
}

impl Lint<'_> {
    fn report(&mut self, rule: Rule, pointer: &str, text: String) {
        self.out.push(Diagnostic::new(
            rule,
            DefinitionKind::ServerJson,
            self.name.clone(),
            Some(pointer.to_owned()),
            text,
        ));
    }

    fn name_rules(&mut self, manifest: &JsonObject) {
        let Some(name) = non_empty_str(manifest.get("name")) else {
            self.report(
                SERVER_JSON_NAME_REQUIRED,
                "/name",
                "`name` is missing or empty: name the server in reverse-DNS form, such as `io.github.owner/server`"
                    .into(),
            );
            return;
        };
        let length = name.chars().count();
        if !(3..=200).contains(&length) {
            self.report(
                SERVER_JSON_NAME_LENGTH,
                "/name",
                format!("`name` has {length} characters; the registry accepts 3 to 200"),
            );
        }
        let valid = name.split_once('/').is_some_and(|(namespace, project)| {
            !namespace.is_empty()
                && !project.is_empty()
                && namespace.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '.' || ch == '-')
                && project.chars().all(|ch| ch.is_ascii_alphanumeric() || ".-_".contains(ch))
        });
        if !valid {
            self.report(SERVER_JSON_NAME_FORMAT, "/name", format!("`name` `{name}` is not of the form `namespace/project` in reverse DNS, such as `io.github.owner/server`"));
        }
    }

    fn description_rules(&mut self, manifest: &JsonObject) {
        match non_empty_str(manifest.get("description")) {
            None => self.report(
                SERVER_JSON_DESCRIPTION_REQUIRED,
                "/description",
                "`description` is missing or empty: say in one sentence what the server does".into(),
            ),
            Some(description) if description.chars().count() > MAX_DESCRIPTION => self.report(
                SERVER_JSON_DESCRIPTION_LENGTH,
                "/description",
                format!(
                    "`description` has {} characters; registries truncate past {MAX_DESCRIPTION}",
                    description.chars().count()
                ),
            ),
            Some(_) => {}
        }
    }

    /// The version rules; returns the version when it is a string.
    fn version_rules(&mut self, manifest: &JsonObject, crate_version: Option<&str>) -> Option<String> {
        let Some(version) = non_empty_str(manifest.get("version")) else {
            self.report(
                SERVER_JSON_VERSION_REQUIRED,
                "/version",
                "`version` is missing or empty: give the server's exact version, such as `1.2.0`".into(),
            );
            return None;
        };
        if version.len() > 255 {
            self.report(
                SERVER_JSON_VERSION_LENGTH,
                "/version",
                format!("`version` has {} characters; the registry accepts at most 255", version.len()),
            );
        }
        if is_range(version) {
            self.report(
                SERVER_JSON_VERSION_NO_RANGE,
                "/version",
                format!("`version` `{version}` is a range: give one exact version, such as `1.2.0`"),
            );
        } else if !is_semver(version) {
            self.report(
                SERVER_JSON_VERSION_SEMVER,
                "/version",
                format!("`version` `{version}` is not semantic versioning (`MAJOR.MINOR.PATCH`)"),
            );
        }
        if let Some(crate_version) = crate_version
            && version != crate_version
        {
            self.report(
                SERVER_JSON_VERSION_SYNC,
                "/version",
                format!("`version` `{version}` differs from the crate's version `{crate_version}`: update server.json when you release"),
            );
        }
        Some(version.to_owned())
    }

    fn repository_rules(&mut self, manifest: &JsonObject) {
        let Some(repository) = manifest.get("repository") else { return };
        let Value::Object(repository) = repository else {
            self.report(
                SERVER_JSON_REPOSITORY_TYPE,
                "/repository",
                format!(
                    "`repository` is {}, not an object `{{\"url\": .., \"source\": \"github\"}}`",
                    json_type(repository)
                ),
            );
            return;
        };
        if non_empty_str(repository.get("url")).is_none() {
            self.report(
                SERVER_JSON_REPOSITORY_URL,
                "/repository/url",
                "`repository.url` is missing: give the repository's URL".into(),
            );
        }
        if non_empty_str(repository.get("source")).is_none() {
            self.report(
                SERVER_JSON_REPOSITORY_SOURCE,
                "/repository/source",
                "`repository.source` is missing: name the host, such as `github`".into(),
            );
        }
    }

    fn package_rules(&mut self, manifest: &JsonObject, version: Option<&str>) {
        let Some(packages) = manifest.get("packages") else { return };
        let Value::Array(packages) = packages else {
            self.report(
                SERVER_JSON_PACKAGES_TYPE,
                "/packages",
                format!("`packages` is {}, not an array", json_type(packages)),
            );
            return;
        };
        for (index, package) in packages.iter().enumerate() {
            let at = format!("/packages/{index}");
            let Value::Object(package) = package else {
                self.report(
                    SERVER_JSON_PACKAGE_TYPE,
                    &at,
                    format!("`packages[{index}]` is {}, not an object", json_type(package)),
                );
                continue;
            };
            if non_empty_str(package.get("registryType")).is_none() {
                self.report(SERVER_JSON_PACKAGE_REGISTRY, &format!("{at}/registryType"), format!("`packages[{index}].registryType` is missing: name the registry, such as `npm`, `pypi`, `oci` or `cargo`"));
            }
            if non_empty_str(package.get("identifier")).is_none() {
                self.report(
                    SERVER_JSON_PACKAGE_IDENTIFIER,
                    &format!("{at}/identifier"),
                    format!("`packages[{index}].identifier` is missing: give the package's name in its registry"),
                );
            }
            match package.get("transport") {
                None => self.report(SERVER_JSON_PACKAGE_TRANSPORT, &format!("{at}/transport"), format!("`packages[{index}].transport` is missing: say how a client talks to the package, such as `{{\"type\": \"stdio\"}}`")),
                Some(transport) => self.transport_rules(transport, &format!("{at}/transport"), &TRANSPORT_TYPES),
            }
            if let Some(package_version) = package.get("version").and_then(Value::as_str) {
                if package_version.trim().eq_ignore_ascii_case("latest") {
                    self.report(SERVER_JSON_PACKAGE_NO_LATEST, &format!("{at}/version"), format!("`packages[{index}].version` is `latest`: pin the exact version, so installs are reproducible"));
                } else if let Some(version) = version
                    && package_version != version
                {
                    self.report(SERVER_JSON_PACKAGE_VERSION_SYNC, &format!("{at}/version"), format!("`packages[{index}].version` `{package_version}` differs from the server's version `{version}`"));
                }
            }
            for (key, rule) in [
                ("packageArguments", SERVER_JSON_PACKAGE_ARGS_TYPE),
                ("runtimeArguments", SERVER_JSON_RUNTIME_ARGS_TYPE),
            ] {
                let Some(arguments) = package.get(key) else { continue };
                let Value::Array(arguments) = arguments else {
                    self.report(
                        rule,
                        &format!("{at}/{key}"),
                        format!("`packages[{index}].{key}` is {}, not an array", json_type(arguments)),
                    );
                    continue;
                };
                for (position, argument) in arguments.iter().enumerate() {
                    self.argument_rules(argument, &format!("{at}/{key}/{position}"));
                }
            }
            if let Some(variables) = package.get("environmentVariables") {
                let Value::Array(variables) = variables else {
                    self.report(
                        SERVER_JSON_ENV_VARS_TYPE,
                        &format!("{at}/environmentVariables"),
                        format!("`packages[{index}].environmentVariables` is {}, not an array", json_type(variables)),
                    );
                    continue;
                };
                for (position, variable) in variables.iter().enumerate() {
                    self.env_var_rules(variable, &format!("{at}/environmentVariables/{position}"));
                }
            }
        }
    }

    /// A package's `transport`, or a remote (which has the same `type` and `url`).
    fn transport_rules(&mut self, transport: &Value, at: &str, allowed: &[&str]) {
        let Value::Object(transport) = transport else {
            self.report(
                SERVER_JSON_TRANSPORT_TYPE,
                at,
                format!("the transport is {}, not an object such as `{{\"type\": \"stdio\"}}`", json_type(transport)),
            );
            return;
        };
        let kind = transport.get("type").and_then(Value::as_str);
        if !kind.is_some_and(|kind| allowed.contains(&kind)) {
            self.report(
                SERVER_JSON_TRANSPORT_TYPE_VALUE,
                &format!("{at}/type"),
                format!(
                    "the transport type {} is not one of {}",
                    kind.map_or("(missing)".to_owned(), |kind| format!("`{kind}`")),
                    allowed.join(", ")
                ),
            );
        }
        if matches!(kind, Some("streamable-http" | "sse")) {
            match non_empty_str(transport.get("url")) {
                None => self.report(
                    SERVER_JSON_TRANSPORT_URL_REQUIRED,
                    &format!("{at}/url"),
                    format!("a `{}` transport needs a `url`", kind.unwrap_or_default()),
                ),
                Some(url) if !(url.starts_with("http://") || url.starts_with("https://")) => {
                    self.report(
                        SERVER_JSON_TRANSPORT_URL_FORMAT,
                        &format!("{at}/url"),
                        format!("the transport url `{url}` is not an `http://` or `https://` URL"),
                    );
                }
                Some(_) => {}
            }
        }
    }

    fn argument_rules(&mut self, argument: &Value, at: &str) {
        let Value::Object(argument) = argument else {
            self.report(
                SERVER_JSON_ARGUMENT_TYPE,
                at,
                format!("the argument is {}, not an object", json_type(argument)),
            );
            return;
        };
        match argument.get("type").and_then(Value::as_str) {
            Some("named") => {
                if non_empty_str(argument.get("name")).is_none() {
                    self.report(
                        SERVER_JSON_ARGUMENT_NAME,
                        &format!("{at}/name"),
                        "a named argument needs its `name`, such as `--port`".into(),
                    );
                }
            }
            Some("positional") => {
                if non_empty_str(argument.get("value")).is_none() && non_empty_str(argument.get("valueHint")).is_none()
                {
                    self.report(
                        SERVER_JSON_ARGUMENT_VALUE,
                        at,
                        "a positional argument needs a `value` or a `valueHint`".into(),
                    );
                }
            }
            other => self.report(
                SERVER_JSON_ARGUMENT_TYPE_VALUE,
                &format!("{at}/type"),
                format!(
                    "the argument type {} is not `positional` or `named`",
                    other.map_or("(missing)".to_owned(), |other| format!("`{other}`"))
                ),
            ),
        }
        self.input_format(argument, at);
    }

    fn env_var_rules(&mut self, variable: &Value, at: &str) {
        let Value::Object(variable) = variable else {
            self.report(
                SERVER_JSON_ENV_VAR_TYPE,
                at,
                format!("the environment variable is {}, not an object", json_type(variable)),
            );
            return;
        };
        if non_empty_str(variable.get("name")).is_none() {
            self.report(
                SERVER_JSON_ENV_VAR_NAME,
                &format!("{at}/name"),
                "the environment variable has no `name`".into(),
            );
        }
        if non_empty_str(variable.get("description")).is_none() {
            let name = variable.get("name").and_then(Value::as_str).unwrap_or("the environment variable");
            self.report(
                SERVER_JSON_ENV_VAR_DESCRIPTION,
                &format!("{at}/description"),
                format!("`{name}` has no `description`: say what it sets, so a user knows what to put in it"),
            );
        }
        self.input_format(variable, at);
    }

    fn input_format(&mut self, input: &JsonObject, at: &str) {
        if let Some(format) = input.get("format")
            && !format.as_str().is_some_and(|format| INPUT_FORMATS.contains(&format))
        {
            self.report(
                SERVER_JSON_INPUT_FORMAT,
                &format!("{at}/format"),
                format!("`format` {format} is not one of {}", INPUT_FORMATS.join(", ")),
            );
        }
    }

    fn remote_rules(&mut self, manifest: &JsonObject) {
        let Some(remotes) = manifest.get("remotes") else { return };
        let Value::Array(remotes) = remotes else {
            self.report(
                SERVER_JSON_REMOTES_TYPE,
                "/remotes",
                format!("`remotes` is {}, not an array", json_type(remotes)),
            );
            return;
        };
        for (index, remote) in remotes.iter().enumerate() {
            let at = format!("/remotes/{index}");
            let Value::Object(object) = remote else {
                self.report(
                    SERVER_JSON_REMOTE_TYPE,
                    &at,
                    format!("`remotes[{index}]` is {}, not an object", json_type(remote)),
                );
                continue;
            };
            match object.get("type").and_then(Value::as_str) {
                None => self.report(SERVER_JSON_REMOTE_TRANSPORT_TYPE, &format!("{at}/type"), format!("`remotes[{index}].type` is missing: `streamable-http` or `sse`")),
                Some("stdio") => self.report(SERVER_JSON_REMOTE_NO_STDIO, &format!("{at}/type"), format!("`remotes[{index}].type` is `stdio`, which only a local package can use: `streamable-http` or `sse`")),
                Some(_) => self.transport_rules(remote, &at, &REMOTE_TYPES),
            }
        }
    }
}

fn non_empty_str(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|text| !text.trim().is_empty())
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `^1.2`, `~1.2.0`, `>=1`, `1.x`, `1.*`, `1 - 2`, `1 || 2`, `latest`: not one exact version.
fn is_range(version: &str) -> bool {
    let version = version.trim();
    version.starts_with(['^', '~', '>', '<', '='])
        || version.contains('*')
        || version.contains("||")
        || version.contains(" - ")
        || version.eq_ignore_ascii_case("latest")
        || version.split(['.', '-', '+']).take(3).any(|part| part.eq_ignore_ascii_case("x"))
}

/// `MAJOR.MINOR.PATCH[-pre][+build]`, numbers without leading zeros.
fn is_semver(version: &str) -> bool {
    let (core, build) = version.split_once('+').map_or((version, None), |(core, build)| (core, Some(build)));
    let (core, pre) = core.split_once('-').map_or((core, None), |(core, pre)| (core, Some(pre)));
    let identifiers = |text: &str| {
        text.split('.').all(|part| !part.is_empty() && part.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-'))
    };
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers.iter().all(|part| {
            !part.is_empty()
                && part.chars().all(|ch| ch.is_ascii_digit())
                && (part.len() == 1 || !part.starts_with('0'))
        })
        && pre.is_none_or(identifiers)
        && build.is_none_or(identifiers)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rules(manifest: &Value, crate_version: Option<&str>) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        check(&manifest.to_string(), crate_version, &mut out);
        out.into_iter().map(|d| (d.rule, d.path.unwrap_or_default())).collect()
    }

    fn good() -> Value {
        json!({
            "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
            "name": "io.github.acme/museum",
            "description": "Search and read a museum collection.",
            "version": "1.2.0",
            "repository": {"url": "https://github.com/acme/museum", "source": "github"},
            "packages": [{
                "registryType": "cargo",
                "identifier": "museum",
                "version": "1.2.0",
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "named", "name": "--http", "valueHint": "addr", "format": "string"},
                    {"type": "positional", "valueHint": "lint"}
                ],
                "runtimeArguments": [],
                "environmentVariables": [{"name": "RUST_LOG", "description": "Log filter.", "format": "string"}]
            }],
            "remotes": [{"type": "streamable-http", "url": "https://museum.example.org/mcp"}]
        })
    }

    /// Each rule: a manifest that fires it (built from the good one) and its path.
    fn cases() -> Vec<(&'static str, Value, &'static str)> {
        let with = |pointer: &str, value: Value| {
            let mut manifest = good();
            *manifest.pointer_mut(pointer).unwrap_or_else(|| panic!("{pointer} exists")) = value;
            manifest
        };
        let without = |parent: &str, key: &str| {
            let mut manifest = good();
            manifest.pointer_mut(parent).and_then(Value::as_object_mut).map(|object| object.remove(key));
            manifest
        };
        vec![
            ("server-json-type", json!(["not", "an", "object"]), ""),
            ("server-json-name-required", without("", "name"), "/name"),
            ("server-json-name-length", with("/name", json!(format!("io.github.acme/{}", "m".repeat(190)))), "/name"),
            ("server-json-name-format", with("/name", json!("museum server")), "/name"),
            ("server-json-description-required", with("/description", json!("")), "/description"),
            ("server-json-description-length", with("/description", json!("x".repeat(101))), "/description"),
            ("server-json-version-required", without("", "version"), "/version"),
            ("server-json-version-length", with("/version", json!(format!("1.0.0-{}", "a".repeat(260)))), "/version"),
            ("server-json-version-no-range", with("/version", json!("^1.2.0")), "/version"),
            ("server-json-version-semver", with("/version", json!("1.2")), "/version"),
            (
                "server-json-repository-type",
                with("/repository", json!("https://github.com/acme/museum")),
                "/repository",
            ),
            ("server-json-repository-url", without("/repository", "url"), "/repository/url"),
            ("server-json-repository-source", without("/repository", "source"), "/repository/source"),
            ("server-json-packages-type", with("/packages", json!({})), "/packages"),
            ("server-json-package-type", with("/packages/0", json!("museum")), "/packages/0"),
            ("server-json-package-registry", without("/packages/0", "registryType"), "/packages/0/registryType"),
            ("server-json-package-identifier", without("/packages/0", "identifier"), "/packages/0/identifier"),
            ("server-json-package-transport", without("/packages/0", "transport"), "/packages/0/transport"),
            ("server-json-package-no-latest", with("/packages/0/version", json!("latest")), "/packages/0/version"),
            ("server-json-package-version-sync", with("/packages/0/version", json!("1.1.0")), "/packages/0/version"),
            (
                "server-json-package-args-type",
                with("/packages/0/packageArguments", json!("--http")),
                "/packages/0/packageArguments",
            ),
            (
                "server-json-runtime-args-type",
                with("/packages/0/runtimeArguments", json!(1)),
                "/packages/0/runtimeArguments",
            ),
            (
                "server-json-env-vars-type",
                with("/packages/0/environmentVariables", json!({})),
                "/packages/0/environmentVariables",
            ),
            ("server-json-remotes-type", with("/remotes", json!("https://museum.example.org/mcp")), "/remotes"),
            ("server-json-remote-type", with("/remotes/0", json!(null)), "/remotes/0"),
            ("server-json-remote-transport-type", without("/remotes/0", "type"), "/remotes/0/type"),
            ("server-json-remote-no-stdio", with("/remotes/0/type", json!("stdio")), "/remotes/0/type"),
            ("server-json-transport-type", with("/packages/0/transport", json!("stdio")), "/packages/0/transport"),
            (
                "server-json-transport-type-value",
                with("/packages/0/transport/type", json!("websocket")),
                "/packages/0/transport/type",
            ),
            ("server-json-transport-url-required", without("/remotes/0", "url"), "/remotes/0/url"),
            (
                "server-json-transport-url-format",
                with("/remotes/0/url", json!("museum.example.org/mcp")),
                "/remotes/0/url",
            ),
            (
                "server-json-argument-type",
                with("/packages/0/packageArguments/0", json!("--http")),
                "/packages/0/packageArguments/0",
            ),
            (
                "server-json-argument-type-value",
                with("/packages/0/packageArguments/0/type", json!("flag")),
                "/packages/0/packageArguments/0/type",
            ),
            (
                "server-json-argument-name",
                without("/packages/0/packageArguments/0", "name"),
                "/packages/0/packageArguments/0/name",
            ),
            (
                "server-json-argument-value",
                without("/packages/0/packageArguments/1", "valueHint"),
                "/packages/0/packageArguments/1",
            ),
            (
                "server-json-input-format",
                with("/packages/0/environmentVariables/0/format", json!("path")),
                "/packages/0/environmentVariables/0/format",
            ),
            (
                "server-json-env-var-type",
                with("/packages/0/environmentVariables/0", json!("RUST_LOG")),
                "/packages/0/environmentVariables/0",
            ),
            (
                "server-json-env-var-name",
                without("/packages/0/environmentVariables/0", "name"),
                "/packages/0/environmentVariables/0/name",
            ),
            (
                "server-json-env-var-description",
                without("/packages/0/environmentVariables/0", "description"),
                "/packages/0/environmentVariables/0/description",
            ),
        ]
    }

    #[test]
    fn a_good_manifest_passes() {
        assert_eq!(rules(&good(), Some("1.2.0")), Vec::<(&str, String)>::new());
    }

    #[test]
    fn each_rule_fires_alone_on_its_mistake() {
        for (rule, manifest, path) in cases() {
            let mut found = rules(&manifest, Some("1.2.0"));
            // A wrong root version also differs from the crate's and the package's.
            if rule.starts_with("server-json-version-") {
                found.retain(|(found, _)| *found == rule || !found.ends_with("version-sync"));
            }
            assert_eq!(found, [(rule, path.to_owned())], "{rule}");
        }
    }

    #[test]
    fn version_sync_compares_with_the_crate() {
        assert_eq!(rules(&good(), Some("1.3.0")), [("server-json-version-sync", "/version".to_owned())]);
        assert_eq!(rules(&good(), None), Vec::<(&str, String)>::new());
    }

    #[test]
    fn every_rule_has_a_case() {
        let covered: Vec<&str> =
            cases().iter().map(|(rule, ..)| *rule).chain(["server-json-version-sync", "server-json-parse"]).collect();
        for rule in mcp_contract_rules::DEFINITION_LINTER.iter().filter(|rule| rule.id.starts_with("server-json-")) {
            assert!(covered.contains(&rule.id), "{} has no case", rule.id);
        }
        assert_eq!(covered.len(), 41);
    }

    #[test]
    fn invalid_json_is_reported_not_panicked_on() {
        assert_eq!(rules(&json!(null), None), [("server-json-type", String::new())]);
        let mut out = Vec::new();
        check("{\"name\": ", None, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, "server-json-parse");
        assert!(out[0].message.starts_with("server.json is not valid JSON"), "{}", out[0].message);
    }

    /// Regression: a manifest with every field wrong at once reports each of them.
    #[test]
    fn every_field_wrong_at_once_reports_them_all() {
        let manifest = json!({
            "name": "x",
            "description": "",
            "version": ">=1",
            "repository": {},
            "packages": [
                7,
                {
                    "version": "latest",
                    "transport": {"type": "sse"},
                    "packageArguments": [3, {"type": "named"}, {"type": "positional"}, {"type": "other", "format": "path"}],
                    "runtimeArguments": {},
                    "environmentVariables": ["X", {"format": 1}]
                },
                {"registryType": "npm", "identifier": "m", "transport": "stdio", "environmentVariables": 1}
            ],
            "remotes": [1, {}, {"type": "stdio"}, {"type": "sse", "url": "ftp://x"}, {"type": "ws"}]
        });
        let found: Vec<(&str, String)> = rules(&manifest, Some("1.0.0"));
        let expected = [
            ("server-json-name-length", "/name"),
            ("server-json-name-format", "/name"),
            ("server-json-description-required", "/description"),
            ("server-json-version-no-range", "/version"),
            ("server-json-version-sync", "/version"),
            ("server-json-repository-url", "/repository/url"),
            ("server-json-repository-source", "/repository/source"),
            ("server-json-package-type", "/packages/0"),
            ("server-json-package-registry", "/packages/1/registryType"),
            ("server-json-package-identifier", "/packages/1/identifier"),
            ("server-json-transport-url-required", "/packages/1/transport/url"),
            ("server-json-package-no-latest", "/packages/1/version"),
            ("server-json-argument-type", "/packages/1/packageArguments/0"),
            ("server-json-argument-name", "/packages/1/packageArguments/1/name"),
            ("server-json-argument-value", "/packages/1/packageArguments/2"),
            ("server-json-argument-type-value", "/packages/1/packageArguments/3/type"),
            ("server-json-input-format", "/packages/1/packageArguments/3/format"),
            ("server-json-runtime-args-type", "/packages/1/runtimeArguments"),
            ("server-json-env-var-type", "/packages/1/environmentVariables/0"),
            ("server-json-env-var-name", "/packages/1/environmentVariables/1/name"),
            ("server-json-env-var-description", "/packages/1/environmentVariables/1/description"),
            ("server-json-input-format", "/packages/1/environmentVariables/1/format"),
            ("server-json-transport-type", "/packages/2/transport"),
            ("server-json-env-vars-type", "/packages/2/environmentVariables"),
            ("server-json-remote-type", "/remotes/0"),
            ("server-json-remote-transport-type", "/remotes/1/type"),
            ("server-json-remote-no-stdio", "/remotes/2/type"),
            ("server-json-transport-url-format", "/remotes/3/url"),
            ("server-json-transport-type-value", "/remotes/4/type"),
        ];
        let expected: Vec<(&str, String)> = expected.iter().map(|(rule, path)| (*rule, (*path).to_owned())).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn ranges_and_semver() {
        for range in ["^1.2.0", "~1.2", ">=1.0.0", "<2", "=1.0.0", "1.x", "1.2.*", "1 - 2", "1 || 2", "latest", "X.1.0"]
        {
            assert!(is_range(range), "{range}");
        }
        for exact in ["1.2.0", "0.1.0-alpha.1", "1.0.0+build.5", "10.20.30"] {
            assert!(!is_range(exact) && is_semver(exact), "{exact}");
        }
        for loose in ["1.2", "01.2.3", "1.2.3.4", "v1.2.3", "1.2.3-"] {
            assert!(!is_semver(loose), "{loose}");
        }
    }
}
