// A SKILL.md at the folder's root, and a symbolic link inside a skill.
fn main() {
    let _skills = mcp_contract::embed_skills!("../skills/files");
}
