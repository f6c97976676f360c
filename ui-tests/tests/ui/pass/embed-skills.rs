// A folder of valid skills embeds into an `EmbeddedSkills` the server serves.
fn main() {
    let skills = mcp_contract::embed_skills!("../../../../examples/conformance-skills");
    assert_eq!(skills.files().len(), 5);
    let _server = mcp_contract::server::Server::new("museum", "1.0.0").skills(skills);
}
