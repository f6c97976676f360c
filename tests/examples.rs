//! The small examples' own tests: each `examples/<name>.rs` ends with a
//! `#[cfg(test)] mod tests` that drives it through the `testing` client or,
//! where HTTP is the point, over a loopback port (`tests/examples/loopback.rs`).
//! One test binary for all of them keeps the link time down; including them
//! here rather than setting `test = true` on each example keeps `cargo test`
//! building the example binaries too.

#[path = "examples/loopback.rs"]
mod loopback;
/// Whether a program the replicas example needs is here (skip outside CI, fail under it).
#[cfg(feature = "redis")]
#[path = "../runtime/tests/support/needs.rs"]
mod needs;

macro_rules! example {
    ($($(#[$attr:meta])* $name:ident = $path:literal;)*) => {$(
        $(#[$attr])*
        #[path = $path]
        #[allow(dead_code, unreachable_pub, reason = "the example's binary half is not what these tests run")]
        mod $name;
    )*};
}

example! {
    hello = "../examples/hello.rs";
    state = "../examples/state.rs";
    errors = "../examples/errors.rs";
    resources_and_prompts = "../examples/resources_and_prompts.rs";
    elicitation = "../examples/elicitation.rs";
    sampling = "../examples/sampling.rs";
    input_required = "../examples/input_required.rs";
    tasks = "../examples/tasks.rs";
    subscriptions = "../examples/subscriptions.rs";
    auth_jwt = "../examples/auth_jwt.rs";
    #[cfg(feature = "redis")]
    replicas = "../examples/replicas.rs";
    testing = "../examples/testing.rs";
    app = "../examples/app.rs";
    landing = "../examples/landing.rs";
}
