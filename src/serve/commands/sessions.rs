//! The sessions and the user of a connection: `endSessions` and `killSessions` (their cursors are
//! killed) and `connectionStatus` (the simulated user of `--user-roles`).
//!
//! May import `state`, `query` and `reply`.

use bson::{Bson, Document, doc};

use crate::serve::reply;
use crate::serve::state::State;
use crate::serve::state::access::Access;

/// `endSessions` / `killSessions`: the cursors of those sessions are killed, as a server kills
/// them with their session (`KillSessionsCursorManagerVisitor`, src/mongo/db/cursor_manager.cpp).
pub fn end_sessions(state: &mut State, name: &str, cmd: &Document) -> Document {
    let ids: Vec<Vec<u8>> = match cmd.get(name) {
        Some(Bson::Array(list)) => list
            .iter()
            .filter_map(|l| match l {
                Bson::Document(d) => {
                    crate::serve::state::sessions::session_id(&bson::doc! { "lsid": d.clone() })
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let killed = state.cursors.kill_of_sessions(&ids) + state.streams.kill_of_sessions(&ids);
    if killed > 0 {
        crate::serve::state::log::line(
            state.log.as_deref(),
            &format!("{name}: killed {killed} cursors of the ended sessions"),
        );
    }
    reply::ok(Document::new())
}

/// `connectionStatus`: no user without `--user-roles`; `authenticatedUserPrivileges` only with
/// `showPrivileges` (`[]` when no user), as `src/mongo/db/commands/connection_status.cpp`.
pub fn connection_status(access: Option<&Access>, cmd: &Document) -> Document {
    let show = matches!(cmd.get("showPrivileges"), Some(Bson::Boolean(true)))
        || matches!(cmd.get("showPrivileges"), Some(Bson::Int32(n)) if *n != 0);
    let info = if let Some(a) = access {
        a.auth_info(show)
    } else {
        let mut info = doc! {"authenticatedUsers": [], "authenticatedUserRoles": []};
        if show {
            info.insert("authenticatedUserPrivileges", Bson::Array(Vec::new()));
        }
        info
    };
    reply::ok(doc! {"authInfo": info})
}
