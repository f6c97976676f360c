#![deny(warnings)]
// The forms are compiled, never asked for: their fields are never read.
#![allow(dead_code)]
//! Every shape of field a form may hold, checked by the derives.

use mcp_contract::prelude::*;

/// A single-select: its default reaches the form because it is `Serialize`.
#[derive(Deserialize, Serialize, JsonSchema, FormField)]
#[serde(rename_all = "lowercase")]
enum Room {
    Egyptian,
    Greek,
}

/// The options of a multi-select.
#[derive(Deserialize, JsonSchema, FormField)]
enum Extra {
    Audioguide,
    Lunch,
}

/// A newtype is a field of what it wraps.
#[derive(Deserialize, JsonSchema, FormField)]
struct Email(String);

/// Fields that join the form through `#[serde(flatten)]`.
#[derive(Deserialize, JsonSchema, ElicitForm)]
struct Contact {
    phone: Option<String>,
}

/// A type of another crate whose schema is a string, checked as `String`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
struct Date(String);

fn greek() -> Room {
    Room::Greek
}

#[derive(Deserialize, JsonSchema, ElicitForm)]
struct Booking {
    /// Who the visit is for.
    name: String,
    email: Email,
    guests: u8,
    children: Option<std::num::NonZeroU8>,
    budget: f64,
    first_visit: bool,
    #[serde(default = "greek")]
    room: Room,
    extras: Vec<Extra>,
    #[serde(flatten)]
    contact: Contact,
    #[schemars(with = "String")]
    day: Date,
    #[serde(skip)]
    internal: Vec<Vec<u8>>,
}

/// A generic form is a form when its parameter is a field.
#[derive(Deserialize, JsonSchema, ElicitForm)]
struct Pick<T> {
    pick: T,
}

/// Book a visit.
#[mcp_tool(requires(elicitation))]
async fn book(ctx: Ctx) -> Result<String, McpError> {
    let booking = ctx.elicit::<Booking>("Book a visit?").await?.accepted();
    let room = ctx.elicit::<Pick<Room>>("Which room?").await?.accepted();
    Ok(format!("{} {}", booking.is_some(), room.is_some()))
}

fn main() {}
