// A folder that is not there, and a path that is no string literal.
fn main() {
    let _missing = mcp_contract::embed_skills!("../skills/nowhere");
    let _not_a_path = mcp_contract::embed_skills!(skills);
}
