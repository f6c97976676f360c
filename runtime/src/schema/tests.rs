//! Generation, portability and the checker on real schemars output, validated
//! with the validators real clients use.

use super::*;
use crate::error::McpError;
use crate::error::render::structured_error;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The arguments of a tool whose handler takes no input: an empty object.
// The shape of `define::NoArguments`, a layer above this one.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Empty {}

/// Search the collection.
#[derive(Deserialize, Serialize, JsonSchema)]
struct FlatInput {
    /// Object ID in the collection, e.g. 436535.
    object_id: u32,
    /// Offset in bytes.
    offset: i64,
    /// Minimum score, from 0 to 1.
    min_score: f64,
    /// Include hidden objects.
    include_hidden: bool,
    /// Words to search for.
    query: String,
    /// Tags the objects must have.
    tags: Vec<String>,
    /// Artist name, when known.
    artist: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct GetObjectOutput {
    /// Title of the object.
    title: String,
    /// Artist display name, when known.
    artist: Option<String>,
    /// Year made, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    year: Option<i32>,
}

/// A place on Earth.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Location {
    /// City name.
    city: String,
    /// Country code, ISO 3166-1 alpha-2.
    country: String,
}

/// How to order results.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum SortOrder {
    Newest,
    Oldest,
    MostViewed,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct NestedInput {
    /// Where the object was made.
    origin: Location,
    /// Where the object is now, if on loan.
    on_loan_at: Option<Location>,
    /// Result order.
    sort: SortOrder,
    /// Secondary order.
    then_sort: Option<SortOrder>,
    /// When the record was last changed.
    #[schemars(extend("format" = "date-time"))]
    updated_at: String,
    /// Catalogue page.
    #[schemars(url)]
    catalogue: String,
}

/// A category in the taxonomy.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Category {
    /// Category name.
    name: String,
    /// Subcategories.
    children: Vec<Category>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct TaxonomyOutput {
    /// Top-level categories.
    roots: Vec<Category>,
    /// The category that was asked for, if it exists.
    focus: Option<Category>,
    /// Where the taxonomy is kept.
    location: Location,
}

/// What to look up.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
enum Lookup {
    /// By object ID.
    Id {
        /// The ID.
        id: u32,
    },
    /// By title words.
    Title { words: String },
}

// Exhibit and Room reach each other: both recursive, neither directly.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Exhibit {
    rooms: Vec<Room>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Room {
    next: Option<Box<Exhibit>>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Tree<T> {
    value: T,
    children: Vec<Tree<T>>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Mixed {
    lookup: Option<Lookup>,
    extra: serde_json::Value,
    tree: Tree<String>,
    exhibit: Exhibit,
    place: Location,
}

#[derive(Serialize, JsonSchema)]
struct HasErrorField {
    error: Option<String>,
}

fn value(schema: &JsonObject) -> Value {
    Value::Object(schema.clone())
}

fn object(value: Value) -> JsonObject {
    value.as_object().expect("a JSON object").clone()
}

/// Every schema the tests generate, by label.
fn all_schemas() -> Vec<(&'static str, JsonObject)> {
    let mut schemas = vec![
        ("FlatInput in", (*input_schema::<FlatInput>()).clone()),
        ("FlatInput out", (*output_schema::<FlatInput>()).clone()),
        ("GetObjectOutput out", (*output_schema::<GetObjectOutput>()).clone()),
        ("NestedInput in", (*input_schema::<NestedInput>()).clone()),
        ("Category in", (*input_schema::<Category>()).clone()),
        ("TaxonomyOutput out", (*output_schema::<TaxonomyOutput>()).clone()),
        ("Lookup in", (*input_schema::<Lookup>()).clone()),
        ("Mixed in", (*input_schema::<Mixed>()).clone()),
        ("HasErrorField out", (*output_schema::<HasErrorField>()).clone()),
        ("Empty in", (*input_schema::<Empty>()).clone()),
    ];
    let widened: Vec<_> = schemas
        .iter()
        .filter(|(label, _)| label.ends_with("out"))
        .map(|(label, schema)| (*label, widen_for_error_results(schema)))
        .collect();
    schemas.extend(widened);
    schemas
}

fn has_recursive_type(label: &str) -> bool {
    ["Category", "TaxonomyOutput", "Mixed"].iter().any(|name| label.starts_with(name))
}

/// Validators of both drafts the real clients use: the Python SDK's
/// `jsonschema` picks 2020-12 for a schema without `$schema`; the TypeScript
/// SDK's Ajv class is draft-07.
fn accepts(schema: &JsonObject, instance: &Value) -> bool {
    let schema = value(schema);
    let latest = jsonschema::draft202012::new(&schema).expect("a valid 2020-12 schema");
    let draft7 = jsonschema::draft7::new(&schema).expect("a valid draft-07 schema");
    let (by_latest, by_draft7) = (latest.is_valid(instance), draft7.is_valid(instance));
    assert_eq!(by_latest, by_draft7, "the drafts disagree on {instance}");
    by_latest
}

#[test]
fn flat_input_keeps_docs_and_bounds_and_drops_number_formats() {
    assert_eq!(
        value(&input_schema::<FlatInput>()),
        json!({
            "description": "Search the collection.",
            "type": "object",
            "properties": {
                "object_id": {
                    "description": "Object ID in the collection, e.g. 436535.",
                    "type": "integer",
                    "minimum": 0
                },
                "offset": {"description": "Offset in bytes.", "type": "integer"},
                "min_score": {"description": "Minimum score, from 0 to 1.", "type": "number"},
                "include_hidden": {"description": "Include hidden objects.", "type": "boolean"},
                "query": {"description": "Words to search for.", "type": "string"},
                "tags": {"description": "Tags the objects must have.", "type": "array", "items": {"type": "string"}},
                "artist": {"description": "Artist name, when known.", "anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["object_id", "offset", "min_score", "include_hidden", "query", "tags"]
        })
    );
}

#[test]
fn output_fields_serialized_as_null_are_required_and_nullable() {
    assert_eq!(
        value(&output_schema::<GetObjectOutput>()),
        json!({
            "type": "object",
            "properties": {
                "title": {"description": "Title of the object.", "type": "string"},
                "artist": {"description": "Artist display name, when known.", "anyOf": [{"type": "string"}, {"type": "null"}]},
                "year": {"description": "Year made, when known.", "anyOf": [{"type": "integer"}, {"type": "null"}]}
            },
            "required": ["title", "artist"]
        })
    );
    let schema = output_schema::<GetObjectOutput>();
    let unknown_artist = serde_json::to_value(GetObjectOutput { title: "Ship".into(), artist: None, year: None });
    assert_eq!(unknown_artist.as_ref().unwrap(), &json!({"title": "Ship", "artist": null}));
    assert!(accepts(&schema, &unknown_artist.unwrap()));
}

#[test]
fn nested_structs_and_enums_are_inlined_and_date_time_survives() {
    let location = json!({
        "description": "A place on Earth.",
        "type": "object",
        "properties": {
            "city": {"description": "City name.", "type": "string"},
            "country": {"description": "Country code, ISO 3166-1 alpha-2.", "type": "string"}
        },
        "required": ["city", "country"]
    });
    let mut origin = location.clone();
    origin["description"] = json!("Where the object was made.");
    assert_eq!(
        value(&input_schema::<NestedInput>()),
        json!({
            "type": "object",
            "properties": {
                "origin": origin,
                "on_loan_at": {
                    "description": "Where the object is now, if on loan.",
                    "anyOf": [location, {"type": "null"}]
                },
                "sort": {"description": "Result order.", "type": "string", "enum": ["newest", "oldest", "most_viewed"]},
                "then_sort": {
                    "description": "Secondary order.",
                    "anyOf": [
                        {
                            "description": "How to order results.",
                            "type": "string",
                            "enum": ["newest", "oldest", "most_viewed"]
                        },
                        {"type": "null"}
                    ]
                },
                "updated_at": {"description": "When the record was last changed.", "type": "string", "format": "date-time"},
                "catalogue": {"description": "Catalogue page.", "type": "string"}
            },
            "required": ["origin", "sort", "updated_at", "catalogue"]
        })
    );
}

#[test]
fn recursive_root_keeps_only_its_own_definition() {
    let category = json!({
        "description": "A category in the taxonomy.",
        "type": "object",
        "properties": {
            "name": {"description": "Category name.", "type": "string"},
            "children": {
                "description": "Subcategories.",
                "type": "array",
                "items": {"$ref": "#/$defs/Category"}
            }
        },
        "required": ["name", "children"]
    });
    let mut expected = category.clone();
    expected["$defs"] = json!({ "Category": category });
    let schema = input_schema::<Category>();
    assert_eq!(value(&schema), expected);

    let tree =
        json!({"name": "Art", "children": [{"name": "Paintings", "children": [{"name": "Oil", "children": []}]}]});
    assert!(accepts(&schema, &tree));
    let nameless_grandchild =
        json!({"name": "Art", "children": [{"name": "Paintings", "children": [{"children": []}]}]});
    assert!(!accepts(&schema, &nameless_grandchild));
}

#[test]
fn recursive_field_keeps_its_definition_and_its_optional_branch_gets_a_type() {
    assert_eq!(
        value(&output_schema::<TaxonomyOutput>()),
        json!({
            "type": "object",
            "properties": {
                "roots": {"description": "Top-level categories.", "type": "array", "items": {"$ref": "#/$defs/Category"}},
                "focus": {
                    "description": "The category that was asked for, if it exists.",
                    "anyOf": [{"type": "object", "$ref": "#/$defs/Category"}, {"type": "null"}]
                },
                "location": {
                    "description": "Where the taxonomy is kept.",
                    "type": "object",
                    "properties": {
                        "city": {"description": "City name.", "type": "string"},
                        "country": {"description": "Country code, ISO 3166-1 alpha-2.", "type": "string"}
                    },
                    "required": ["city", "country"]
                }
            },
            "required": ["roots", "focus", "location"],
            "$defs": {
                "Category": {
                    "description": "A category in the taxonomy.",
                    "type": "object",
                    "properties": {
                        "name": {"description": "Category name.", "type": "string"},
                        "children": {
                            "description": "Subcategories.",
                            "type": "array",
                            "items": {"$ref": "#/$defs/Category"}
                        }
                    },
                    "required": ["name", "children"]
                }
            }
        })
    );
}

#[test]
fn mutual_and_generic_recursion_keep_exactly_the_recursive_definitions() {
    let schema = input_schema::<Mixed>();
    let defs: Vec<&String> = schema["$defs"].as_object().unwrap().keys().collect();
    assert_eq!(defs, ["Exhibit", "Room", "Tree"]);
    // Neither Lookup (an enum) nor Location was kept as a definition.
    assert_eq!(schema["properties"]["place"]["type"], "object");
    assert_eq!(schema["properties"]["lookup"]["anyOf"][0]["type"], "object");
    assert_eq!(schema["properties"]["lookup"]["anyOf"][0]["oneOf"][1]["properties"]["by"]["const"], "title");
    assert_eq!(schema["properties"]["extra"], json!({}));
    assert_eq!(
        schema["$defs"]["Room"]["properties"]["next"]["anyOf"][0],
        json!({"type": "object", "$ref": "#/$defs/Exhibit"})
    );
}

#[test]
fn tagged_enum_root_is_an_object_schema() {
    let schema = input_schema::<Lookup>();
    assert!(is_object_schema(&schema));
    assert_eq!(
        schema["oneOf"][0]["properties"]["id"],
        json!({"description": "The ID.", "type": "integer", "minimum": 0})
    );
    assert!(accepts(&schema, &json!({"by": "id", "id": 7})));
    assert!(!accepts(&schema, &json!({"by": "id", "words": "ship"})));
    assert!(!is_object_schema(&input_schema::<Vec<String>>()));
    assert!(!is_object_schema(&input_schema::<Option<FlatInput>>()));
}

#[test]
fn empty_input_has_properties_and_keeps_additional_properties_false() {
    assert_eq!(
        value(&input_schema::<Empty>()),
        json!({
            "description": "The arguments of a tool whose handler takes no input: an empty object.",
            "type": "object",
            "properties": {},
            "additionalProperties": false
        })
    );
}

#[test]
fn generated_schemas_have_no_portability_problems_but_recursive_references() {
    for (label, schema) in all_schemas() {
        let problems = portability_problems(&schema);
        let (recursive, others): (Vec<_>, Vec<_>) = problems
            .iter()
            .partition(|problem| matches!(problem.kind, PortabilityProblemKind::RecursiveReference { .. }));
        assert!(others.is_empty(), "{label}: {others:#?}");
        assert_eq!(has_recursive_type(label), !recursive.is_empty(), "{label}: {recursive:#?}");
        assert!(!value(&schema).to_string().contains("\"$ref\":\"#\""), "{label} refers to its root");
    }
}

#[test]
fn portable_is_idempotent() {
    for (label, schema) in all_schemas() {
        assert_eq!(portable(schema.clone()), schema, "{label}");
    }
}

#[test]
fn checker_reports_what_schemars_writes_by_default() {
    let raw = schemars::schema_for!(NestedInput);
    let problems: Vec<(String, PortabilityProblemKind)> = portability_problems(raw.as_object().unwrap())
        .into_iter()
        .map(|problem| (problem.pointer, problem.kind))
        .collect();
    let definition = |name: &str| PortabilityProblemKind::Definition { name: name.into() };
    let reference = |target: &str| PortabilityProblemKind::Reference { target: target.into() };
    assert_eq!(
        problems,
        [
            ("".into(), PortabilityProblemKind::MetaSchema),
            ("/$defs/Location".into(), definition("Location")),
            ("/$defs/SortOrder".into(), definition("SortOrder")),
            ("/properties/catalogue".into(), PortabilityProblemKind::UnportableFormat { format: "uri".into() }),
            ("/properties/on_loan_at/anyOf/0".into(), PortabilityProblemKind::TypelessBranch { keyword: "anyOf" }),
            ("/properties/on_loan_at/anyOf/0".into(), reference("#/$defs/Location")),
            ("/properties/origin".into(), reference("#/$defs/Location")),
            ("/properties/sort".into(), reference("#/$defs/SortOrder")),
            ("/properties/then_sort/anyOf/0".into(), PortabilityProblemKind::TypelessBranch { keyword: "anyOf" }),
            ("/properties/then_sort/anyOf/0".into(), reference("#/$defs/SortOrder")),
        ]
    );
    let first = portability_problems(raw.as_object().unwrap())[0].to_string();
    assert_eq!(
        first,
        "At the root of the schema: the `$schema` key makes some validators fetch a meta-schema; remove it."
    );
}

#[test]
fn checker_flags_boolean_schemas_but_not_additional_properties_false() {
    let schema = json!({
        "type": "object",
        "properties": {"anything": true, "nothing": false},
        "additionalProperties": false
    });
    let pointers: Vec<String> = portability_problems(&object(schema.clone())).into_iter().map(|p| p.pointer).collect();
    assert_eq!(pointers, ["/properties/anything", "/properties/nothing"]);
    assert_eq!(
        value(&portable(object(schema))),
        json!({
            "type": "object",
            "properties": {"anything": {}, "nothing": {"not": {}}},
            "additionalProperties": false
        })
    );
}

#[test]
fn a_reference_site_that_also_constrains_keeps_both_constraints() {
    let schema = json!({
        "type": "object",
        "properties": {
            "short_name": {"$ref": "#/$defs/Name", "maxLength": 5, "description": "At most five letters."},
            "name": {"$ref": "#/$defs/Name", "description": "The name."}
        },
        "$defs": {"Name": {"type": "string", "maxLength": 10, "description": "A name."}}
    });
    assert_eq!(
        value(&portable(object(schema))),
        json!({
            "type": "object",
            "properties": {
                "short_name": {
                    "description": "At most five letters.",
                    "type": "string",
                    "maxLength": 5,
                    "allOf": [{"type": "string", "maxLength": 10, "description": "A name."}]
                },
                "name": {"type": "string", "maxLength": 10, "description": "The name."}
            }
        })
    );
}

#[test]
fn encoded_and_draft07_definition_names_resolve() {
    let schema = json!({
        "type": "object",
        "properties": {
            "page": {"$ref": "#/definitions/Page%3CT%3E~1v2"},
            "list": {"$ref": "#/$defs/List%3Cu8%3E"}
        },
        "definitions": {"Page<T>/v2": {"type": "integer", "format": "uint32"}},
        "$defs": {"List<u8>": {
            "type": "object",
            "properties": {"rest": {"anyOf": [{"$ref": "#/$defs/List%3Cu8%3E"}, {"type": "null"}]}}
        }}
    });
    let schema = portable(object(schema));
    assert_eq!(schema["properties"]["page"], json!({"type": "integer"}));
    assert_eq!(schema["properties"]["list"], json!({"$ref": "#/$defs/List%3Cu8%3E"}));
    assert_eq!(
        schema["$defs"],
        json!({"List<u8>": {
            "type": "object",
            "properties": {"rest": {"anyOf": [{"type": "object", "$ref": "#/$defs/List%3Cu8%3E"}, {"type": "null"}]}}
        }})
    );
    assert!(accepts(&schema, &json!({"page": 3, "list": {"rest": {"rest": null}}})));
    assert!(!accepts(&schema, &json!({"page": 3, "list": {"rest": {"rest": 4}}})));
}

#[test]
fn unconstrained_branches_are_dropped_from_any_of_and_typed_in_one_of() {
    let schema = json!({
        "type": "object",
        "properties": {
            "note": {"anyOf": [{"description": "Anything."}, {"type": "null"}]},
            "pick": {"oneOf": [{}, {"const": 3}, {"enum": ["a", null]}]}
        }
    });
    assert_eq!(
        value(&portable(object(schema))),
        json!({
            "type": "object",
            "properties": {
                "note": {},
                "pick": {"oneOf": [
                    {"type": "object"}, {"type": "array"}, {"type": "string"},
                    {"type": "number"}, {"type": "boolean"}, {"type": "null"},
                    {"type": "integer", "const": 3},
                    {"type": "string", "enum": ["a", null]},
                    {"type": "null", "enum": ["a", null]}
                ]}
            }
        })
    );
}

#[test]
fn foreign_references_are_left_and_reported() {
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}});
    let schema = portable(object(schema));
    assert_eq!(schema["properties"]["x"], json!({"$ref": "https://example.com/x.json"}));
    assert_eq!(
        portability_problems(&schema),
        [PortabilityProblem {
            pointer: "/properties/x".into(),
            kind: PortabilityProblemKind::Reference { target: "https://example.com/x.json".into() }
        }]
    );
}

#[test]
fn widened_output_keeps_properties_at_the_top_and_accepts_error_results() {
    let error = json!({
        "description": "Present only when the call failed (`isError: true`).",
        "type": "object",
        "properties": {
            "code": {"description": "The JSON-RPC error code, e.g. -32001 for NotFound.", "type": "integer"},
            "message": {"description": "What went wrong.", "type": "string"},
            "data": {
                "description": "Details: `reason` names the declared failure mode; `recovery.hint` says what to do next.",
                "type": "object"
            }
        },
        "required": ["code", "message"],
        "additionalProperties": false
    });
    let widened = widen_for_error_results(&output_schema::<GetObjectOutput>());
    assert_eq!(
        value(&widened),
        json!({
            "type": "object",
            "properties": {
                "title": {"description": "Title of the object.", "type": "string"},
                "artist": {"description": "Artist display name, when known.", "anyOf": [{"type": "string"}, {"type": "null"}]},
                "year": {"description": "Year made, when known.", "anyOf": [{"type": "integer"}, {"type": "null"}]},
                "error": error
            },
            "anyOf": [
                {"type": "object", "required": ["title", "artist"]},
                {"type": "object", "required": ["error"]}
            ]
        })
    );

    let success = serde_json::to_value(GetObjectOutput { title: "Ship".into(), artist: None, year: Some(1889) });
    assert!(accepts(&widened, &success.unwrap()));
    let failure = McpError::not_found("No object 42.")
        .with_data_field("objectId", 42)
        .with_reason("not_in_collection")
        .with_recovery_hint("Search first.");
    assert!(accepts(&widened, &structured_error(&failure)));
    assert!(accepts(&widened, &structured_error(&McpError::timeout("Too slow."))));
    // As strict as before for the success shape, and strict on the error shape.
    assert!(!accepts(&widened, &json!({"title": "Ship"})));
    assert!(!accepts(&widened, &json!({"title": 3, "artist": null})));
    assert!(!accepts(&widened, &json!({})));
    assert!(!accepts(&widened, &json!({"error": {"code": -32001}})));
    assert!(!accepts(&widened, &json!({"error": {"code": -32001, "message": "x", "stack": "..."}})));
    // What the success schema alone does to an error result: the TypeScript SDK's complaint.
    assert!(!accepts(&output_schema::<GetObjectOutput>(), &structured_error(&failure)));
}

#[test]
fn widened_output_nests_when_the_success_shape_cannot_take_an_error_property() {
    let widened = widen_for_error_results(&output_schema::<HasErrorField>());
    assert_eq!(
        value(&widened),
        json!({
            "type": "object",
            "anyOf": [
                {"type": "object", "properties": {"error": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "required": ["error"]},
                error_envelope_schema()
            ]
        })
    );
    assert!(accepts(&widened, &json!({"error": null})));
    assert!(accepts(&widened, &json!({"error": "a field of the success shape"})));
    assert!(accepts(&widened, &structured_error(&McpError::internal_error("Boom."))));
    assert!(!accepts(&widened, &json!({"error": 5})));

    let tagged = widen_for_error_results(&output_schema::<Lookup>());
    assert_eq!(tagged["anyOf"][1], value(&error_envelope_schema()));
    assert!(accepts(&tagged, &json!({"by": "title", "words": "ship"})));
    assert!(accepts(&tagged, &structured_error(&McpError::internal_error("Boom."))));
    assert!(!accepts(&tagged, &json!({"by": "title"})));
}

#[test]
fn widened_recursive_output_keeps_its_definitions_at_the_top() {
    for widened in [
        widen_for_error_results(&output_schema::<TaxonomyOutput>()),
        widen_for_error_results(&input_schema::<Category>()),
    ] {
        assert_eq!(widened["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(), ["Category"]);
        assert!(accepts(&widened, &structured_error(&McpError::internal_error("Boom."))));
    }
    let widened = widen_for_error_results(&output_schema::<TaxonomyOutput>());
    let taxonomy = TaxonomyOutput {
        roots: vec![Category { name: "Art".into(), children: vec![Category { name: "Oil".into(), children: vec![] }] }],
        focus: None,
        location: Location { city: "Paris".into(), country: "FR".into() },
    };
    let mut success = serde_json::to_value(&taxonomy).unwrap();
    assert!(accepts(&widened, &success));
    success["roots"][0]["children"][0]["children"] = json!([{"name": 3, "children": []}]);
    assert!(!accepts(&widened, &success));

    // A root that refers to itself, embedded: its `#` became `#/$defs/Category`, so it
    // still means the category and not the widened schema.
    let category = widen_for_error_results(&input_schema::<Category>());
    assert!(accepts(&category, &json!({"name": "Art", "children": [{"name": "Oil", "children": []}]})));
    assert!(!accepts(&category, &json!({"name": "Art", "children": [{"error": {"code": 1, "message": "x"}}]})));
}

/// Gemini's function declarations take one `type` per schema (an OpenAPI 3.0
/// subset, with `nullable`), so a `type` array is split into typed `anyOf`
/// branches, each with its own type's keywords, and still accepts what it did.
#[test]
fn type_arrays_become_typed_any_of_branches_for_gemini() {
    let raw = json!({
        "type": "object",
        "properties": {
            "nickname": {"description": "Nickname, if any.", "type": ["string", "null"], "maxLength": 20},
            "size": {"type": ["integer", "string"], "minimum": 1, "pattern": "^[SML]$"},
            "count": {"type": ["number", "integer"], "maximum": 9}
        }
    });
    let problems: Vec<PortabilityProblemKind> =
        portability_problems(raw.as_object().unwrap()).into_iter().map(|problem| problem.kind).collect();
    assert_eq!(
        problems,
        [
            PortabilityProblemKind::TypeArray { types: vec!["number".into(), "integer".into()] },
            PortabilityProblemKind::TypeArray { types: vec!["string".into(), "null".into()] },
            PortabilityProblemKind::TypeArray { types: vec!["integer".into(), "string".into()] },
        ]
    );
    let schema = portable(object(raw.clone()));
    assert_eq!(
        value(&schema),
        json!({
            "type": "object",
            "properties": {
                "nickname": {"description": "Nickname, if any.", "anyOf": [{"type": "string", "maxLength": 20}, {"type": "null"}]},
                "size": {"anyOf": [{"type": "string", "pattern": "^[SML]$"}, {"type": "integer", "minimum": 1}]},
                "count": {"type": "number", "maximum": 9}
            }
        })
    );
    assert!(portability_problems(&schema).is_empty(), "{:#?}", portability_problems(&schema));
    for (instance, accepted) in [
        (json!({"nickname": null, "size": "M", "count": 3}), true),
        (json!({"nickname": "Al", "size": 4, "count": 2.5}), true),
        (json!({"nickname": "a name far longer than twenty", "size": "M"}), false),
        (json!({"size": 0}), false),
        (json!({"size": "XL"}), false),
        (json!({"count": 10}), false),
    ] {
        assert_eq!(accepts(&schema, &instance), accepted, "{instance}");
        assert_eq!(accepts(&object(raw.clone()), &instance), accepted, "the raw schema on {instance}");
    }
}
