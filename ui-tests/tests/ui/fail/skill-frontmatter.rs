// Every broken frontmatter of the folder, in one build: a name that breaks the
// format, a missing description, a key the format does not define, and a name
// that is not the skill's folder's.
fn main() {
    let _skills = mcp_contract::embed_skills!("../skills/frontmatter");
}
