//! Shutdown signals: SIGINT and SIGTERM (Ctrl-C elsewhere), shared by both transports.

use tokio_util::sync::CancellationToken;

pub(crate) async fn cancel_on_signal(token: CancellationToken) {
    shutdown_signal().await;
    token.cancel();
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM; never when the handlers cannot be installed.
pub(crate) async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
