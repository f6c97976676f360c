use mcp_contract::prelude::*;

// Declared outside any handler: the derive checks each field where it is
// written, so a nested object is found at compile time wherever the form is.
#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

#[derive(Deserialize, JsonSchema, ElicitForm)]
struct Registration {
    name: String,
    home: Address,
    past_homes: Vec<Address>,
    nicknames: Vec<String>,
}

#[derive(Deserialize, JsonSchema, FormField)]
enum Payment {
    Cash,
    Card { number: String },
}

#[derive(Deserialize, JsonSchema, ElicitForm)]
enum NotAStruct {
    Yes,
    No,
}

// An enum's default reaches the form only through `Serialize`.
#[derive(Deserialize, JsonSchema, FormField)]
enum Room {
    Egyptian,
    Greek,
}

fn egyptian() -> Room {
    Room::Egyptian
}

#[derive(Deserialize, JsonSchema, ElicitForm)]
struct Booking {
    #[serde(default = "egyptian")]
    room: Room,
}

/// Ask for a list of addresses: no form holds a list.
#[mcp_tool(requires(elicitation))]
async fn addresses(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.elicit::<Vec<Address>>("Your addresses?").await?;
    Ok(format!("{}", answer.accepted().map_or(0, |all| all.len())))
}

/// Ask for one string: a form asks for an object.
#[mcp_tool(requires(elicitation))]
async fn nickname(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.input("nickname").elicit::<String>("Your nickname?").await?;
    Ok(answer.accepted().unwrap_or_default())
}

/// A form whose fields were checked where it is declared: no second error here.
#[mcp_tool(requires(elicitation))]
async fn register(ctx: Ctx) -> Result<String, McpError> {
    Ok(ctx.elicit::<Registration>("Register?").await?.accepted().map(|r| r.name).unwrap_or_default())
}

fn main() {}
