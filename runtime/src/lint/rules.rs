//! The registry of the linter's rules: one constant per rule id, with its
//! severity. A test checks that each has its section in `docs/lints.md`.

use super::Severity;

/// A rule of the definition linter: its id (the anchor of its section in
/// `docs/lints.md`) and its severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    /// The rule id, e.g. `format-parity`.
    pub id: &'static str,
    /// The severity of its diagnostics.
    pub severity: Severity,
}

const fn rule(id: &'static str, severity: Severity) -> Rule {
    Rule { id, severity }
}

pub(crate) const FORMAT_PARITY: Rule = rule("format-parity", Severity::Error);
pub(crate) const FORMAT_PARITY_THREW: Rule = rule("format-parity-threw", Severity::Warning);
pub(crate) const FORMAT_PARITY_WALK_FAILED: Rule = rule("format-parity-walk-failed", Severity::Warning);
pub(crate) const FORMAT_PARITY_DEPTH_LIMIT: Rule = rule("format-parity-depth-limit", Severity::Warning);
pub(crate) const SCHEMA_IS_OBJECT: Rule = rule("schema-is-object", Severity::Error);
pub(crate) const DESCRIBE_ON_FIELDS: Rule = rule("describe-on-fields", Severity::Warning);
pub(crate) const SCHEMA_FORMAT_PORTABILITY: Rule = rule("schema-format-portability", Severity::Error);
pub(crate) const SCHEMA_ANYOF_NEEDS_TYPE: Rule = rule("schema-anyof-needs-type", Severity::Warning);
pub(crate) const SCHEMA_NO_DISCRIMINATOR_KEYWORD: Rule = rule("schema-no-discriminator-keyword", Severity::Warning);
pub(crate) const SCHEMA_NO_DEFS: Rule = rule("schema-no-defs", Severity::Warning);
pub(crate) const SCHEMA_DIALECT_TAG: Rule = rule("schema-dialect-tag", Severity::Warning);
pub(crate) const NAME_REQUIRED: Rule = rule("name-required", Severity::Error);
pub(crate) const NAME_FORMAT: Rule = rule("name-format", Severity::Error);
pub(crate) const NAME_UNIQUE: Rule = rule("name-unique", Severity::Error);
pub(crate) const DESCRIPTION_REQUIRED: Rule = rule("description-required", Severity::Warning);
pub(crate) const ANNOTATION_COHERENCE: Rule = rule("annotation-coherence", Severity::Warning);
pub(crate) const AUTH_SCOPE_FORMAT: Rule = rule("auth-scope-format", Severity::Error);
pub(crate) const ERROR_CONTRACT_CODE_UNKNOWN_ERROR: Rule = rule("error-contract-code-unknown-error", Severity::Warning);
pub(crate) const ERROR_CONTRACT_REASON_REQUIRED: Rule = rule("error-contract-reason-required", Severity::Error);
pub(crate) const ERROR_CONTRACT_REASON_FORMAT: Rule = rule("error-contract-reason-format", Severity::Warning);
pub(crate) const ERROR_CONTRACT_REASON_UNIQUE: Rule = rule("error-contract-reason-unique", Severity::Error);
pub(crate) const ERROR_CONTRACT_WHEN_REQUIRED: Rule = rule("error-contract-when-required", Severity::Error);
pub(crate) const ERROR_CONTRACT_RECOVERY_EMPTY: Rule = rule("error-contract-recovery-empty", Severity::Error);
pub(crate) const ERROR_CONTRACT_RECOVERY_MIN_WORDS: Rule = rule("error-contract-recovery-min-words", Severity::Warning);
pub(crate) const URI_TEMPLATE_REQUIRED: Rule = rule("uri-template-required", Severity::Error);
pub(crate) const URI_TEMPLATE_VALID: Rule = rule("uri-template-valid", Severity::Error);
pub(crate) const TEMPLATE_PARAMS_ALIGN: Rule = rule("template-params-align", Severity::Error);
pub(crate) const RESOURCE_NAME_NOT_URI: Rule = rule("resource-name-not-uri", Severity::Warning);
pub(crate) const RESOURCE_MIME_TYPE_FORMAT: Rule = rule("resource-mime-type-format", Severity::Warning);
pub(crate) const PROMPT_ARGUMENTS_ALIGN: Rule = rule("prompt-arguments-align", Severity::Error);
pub(crate) const SERVER_JSON_TYPE: Rule = rule("server-json-type", Severity::Error);
pub(crate) const SERVER_JSON_NAME_REQUIRED: Rule = rule("server-json-name-required", Severity::Error);
pub(crate) const SERVER_JSON_NAME_LENGTH: Rule = rule("server-json-name-length", Severity::Error);
pub(crate) const SERVER_JSON_NAME_FORMAT: Rule = rule("server-json-name-format", Severity::Error);
pub(crate) const SERVER_JSON_DESCRIPTION_REQUIRED: Rule = rule("server-json-description-required", Severity::Error);
pub(crate) const SERVER_JSON_DESCRIPTION_LENGTH: Rule = rule("server-json-description-length", Severity::Warning);
pub(crate) const SERVER_JSON_VERSION_REQUIRED: Rule = rule("server-json-version-required", Severity::Error);
pub(crate) const SERVER_JSON_VERSION_LENGTH: Rule = rule("server-json-version-length", Severity::Error);
pub(crate) const SERVER_JSON_VERSION_NO_RANGE: Rule = rule("server-json-version-no-range", Severity::Error);
pub(crate) const SERVER_JSON_VERSION_SEMVER: Rule = rule("server-json-version-semver", Severity::Warning);
pub(crate) const SERVER_JSON_VERSION_SYNC: Rule = rule("server-json-version-sync", Severity::Warning);
pub(crate) const SERVER_JSON_REPOSITORY_TYPE: Rule = rule("server-json-repository-type", Severity::Error);
pub(crate) const SERVER_JSON_REPOSITORY_URL: Rule = rule("server-json-repository-url", Severity::Error);
pub(crate) const SERVER_JSON_REPOSITORY_SOURCE: Rule = rule("server-json-repository-source", Severity::Error);
pub(crate) const SERVER_JSON_PACKAGES_TYPE: Rule = rule("server-json-packages-type", Severity::Error);
pub(crate) const SERVER_JSON_PACKAGE_TYPE: Rule = rule("server-json-package-type", Severity::Error);
pub(crate) const SERVER_JSON_PACKAGE_REGISTRY: Rule = rule("server-json-package-registry", Severity::Error);
pub(crate) const SERVER_JSON_PACKAGE_IDENTIFIER: Rule = rule("server-json-package-identifier", Severity::Error);
pub(crate) const SERVER_JSON_PACKAGE_TRANSPORT: Rule = rule("server-json-package-transport", Severity::Error);
pub(crate) const SERVER_JSON_PACKAGE_NO_LATEST: Rule = rule("server-json-package-no-latest", Severity::Error);
pub(crate) const SERVER_JSON_PACKAGE_VERSION_SYNC: Rule = rule("server-json-package-version-sync", Severity::Warning);
pub(crate) const SERVER_JSON_PACKAGE_ARGS_TYPE: Rule = rule("server-json-package-args-type", Severity::Error);
pub(crate) const SERVER_JSON_RUNTIME_ARGS_TYPE: Rule = rule("server-json-runtime-args-type", Severity::Error);
pub(crate) const SERVER_JSON_ENV_VARS_TYPE: Rule = rule("server-json-env-vars-type", Severity::Error);
pub(crate) const SERVER_JSON_REMOTES_TYPE: Rule = rule("server-json-remotes-type", Severity::Error);
pub(crate) const SERVER_JSON_REMOTE_TYPE: Rule = rule("server-json-remote-type", Severity::Error);
pub(crate) const SERVER_JSON_REMOTE_TRANSPORT_TYPE: Rule = rule("server-json-remote-transport-type", Severity::Error);
pub(crate) const SERVER_JSON_REMOTE_NO_STDIO: Rule = rule("server-json-remote-no-stdio", Severity::Error);
pub(crate) const SERVER_JSON_TRANSPORT_TYPE: Rule = rule("server-json-transport-type", Severity::Error);
pub(crate) const SERVER_JSON_TRANSPORT_TYPE_VALUE: Rule = rule("server-json-transport-type-value", Severity::Error);
pub(crate) const SERVER_JSON_TRANSPORT_URL_REQUIRED: Rule = rule("server-json-transport-url-required", Severity::Error);
pub(crate) const SERVER_JSON_TRANSPORT_URL_FORMAT: Rule = rule("server-json-transport-url-format", Severity::Warning);
pub(crate) const SERVER_JSON_ARGUMENT_TYPE: Rule = rule("server-json-argument-type", Severity::Error);
pub(crate) const SERVER_JSON_ARGUMENT_TYPE_VALUE: Rule = rule("server-json-argument-type-value", Severity::Error);
pub(crate) const SERVER_JSON_ARGUMENT_NAME: Rule = rule("server-json-argument-name", Severity::Error);
pub(crate) const SERVER_JSON_ARGUMENT_VALUE: Rule = rule("server-json-argument-value", Severity::Error);
pub(crate) const SERVER_JSON_INPUT_FORMAT: Rule = rule("server-json-input-format", Severity::Warning);
pub(crate) const SERVER_JSON_ENV_VAR_TYPE: Rule = rule("server-json-env-var-type", Severity::Error);
pub(crate) const SERVER_JSON_ENV_VAR_NAME: Rule = rule("server-json-env-var-name", Severity::Error);
pub(crate) const SERVER_JSON_ENV_VAR_DESCRIPTION: Rule = rule("server-json-env-var-description", Severity::Warning);

/// Every rule of the definition linter, by family.
pub const RULES: &[Rule] = &[
    FORMAT_PARITY,
    FORMAT_PARITY_THREW,
    FORMAT_PARITY_WALK_FAILED,
    FORMAT_PARITY_DEPTH_LIMIT,
    SCHEMA_IS_OBJECT,
    DESCRIBE_ON_FIELDS,
    SCHEMA_FORMAT_PORTABILITY,
    SCHEMA_ANYOF_NEEDS_TYPE,
    SCHEMA_NO_DISCRIMINATOR_KEYWORD,
    SCHEMA_NO_DEFS,
    SCHEMA_DIALECT_TAG,
    NAME_REQUIRED,
    NAME_FORMAT,
    NAME_UNIQUE,
    DESCRIPTION_REQUIRED,
    ANNOTATION_COHERENCE,
    AUTH_SCOPE_FORMAT,
    ERROR_CONTRACT_CODE_UNKNOWN_ERROR,
    ERROR_CONTRACT_REASON_REQUIRED,
    ERROR_CONTRACT_REASON_FORMAT,
    ERROR_CONTRACT_REASON_UNIQUE,
    ERROR_CONTRACT_WHEN_REQUIRED,
    ERROR_CONTRACT_RECOVERY_EMPTY,
    ERROR_CONTRACT_RECOVERY_MIN_WORDS,
    URI_TEMPLATE_REQUIRED,
    URI_TEMPLATE_VALID,
    TEMPLATE_PARAMS_ALIGN,
    RESOURCE_NAME_NOT_URI,
    RESOURCE_MIME_TYPE_FORMAT,
    PROMPT_ARGUMENTS_ALIGN,
    SERVER_JSON_TYPE,
    SERVER_JSON_NAME_REQUIRED,
    SERVER_JSON_NAME_LENGTH,
    SERVER_JSON_NAME_FORMAT,
    SERVER_JSON_DESCRIPTION_REQUIRED,
    SERVER_JSON_DESCRIPTION_LENGTH,
    SERVER_JSON_VERSION_REQUIRED,
    SERVER_JSON_VERSION_LENGTH,
    SERVER_JSON_VERSION_NO_RANGE,
    SERVER_JSON_VERSION_SEMVER,
    SERVER_JSON_VERSION_SYNC,
    SERVER_JSON_REPOSITORY_TYPE,
    SERVER_JSON_REPOSITORY_URL,
    SERVER_JSON_REPOSITORY_SOURCE,
    SERVER_JSON_PACKAGES_TYPE,
    SERVER_JSON_PACKAGE_TYPE,
    SERVER_JSON_PACKAGE_REGISTRY,
    SERVER_JSON_PACKAGE_IDENTIFIER,
    SERVER_JSON_PACKAGE_TRANSPORT,
    SERVER_JSON_PACKAGE_NO_LATEST,
    SERVER_JSON_PACKAGE_VERSION_SYNC,
    SERVER_JSON_PACKAGE_ARGS_TYPE,
    SERVER_JSON_RUNTIME_ARGS_TYPE,
    SERVER_JSON_ENV_VARS_TYPE,
    SERVER_JSON_REMOTES_TYPE,
    SERVER_JSON_REMOTE_TYPE,
    SERVER_JSON_REMOTE_TRANSPORT_TYPE,
    SERVER_JSON_REMOTE_NO_STDIO,
    SERVER_JSON_TRANSPORT_TYPE,
    SERVER_JSON_TRANSPORT_TYPE_VALUE,
    SERVER_JSON_TRANSPORT_URL_REQUIRED,
    SERVER_JSON_TRANSPORT_URL_FORMAT,
    SERVER_JSON_ARGUMENT_TYPE,
    SERVER_JSON_ARGUMENT_TYPE_VALUE,
    SERVER_JSON_ARGUMENT_NAME,
    SERVER_JSON_ARGUMENT_VALUE,
    SERVER_JSON_INPUT_FORMAT,
    SERVER_JSON_ENV_VAR_TYPE,
    SERVER_JSON_ENV_VAR_NAME,
    SERVER_JSON_ENV_VAR_DESCRIPTION,
];
