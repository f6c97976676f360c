use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
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

/// A form declared here, with a nested object and an array of objects.
#[mcp_tool(requires(elicitation))]
async fn register(ctx: Ctx) -> Result<String, McpError> {
    #[derive(Deserialize, JsonSchema)]
    struct Home {
        city: String,
    }
    #[derive(Deserialize, JsonSchema)]
    struct Registration {
        name: String,
        home: Home,
    }
    #[derive(Deserialize, JsonSchema)]
    struct Household {
        name: String,
        members: Vec<Home>,
    }
    let (one, all) = tokio::join!(
        ctx.elicit::<Registration>("Register?"),
        ctx.elicit::<Household>("Your household?"),
    );
    Ok(format!("{} {}", one?.accepted().is_some(), all?.accepted().is_some()))
}

/// Struct `Address` is declared elsewhere: out of the macro's sight, the
/// runtime judges it (it is flat, so it passes there).
#[mcp_tool(requires(elicitation))]
async fn home_address(ctx: Ctx) -> Result<String, McpError> {
    Ok(ctx.elicit::<Address>("Your address?").await?.accepted().map(|a| a.street).unwrap_or_default())
}

fn main() {}
