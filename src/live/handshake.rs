//! The first words with a cluster: that the target is a mongos, and its release line. Owns the
//! `hello` / `isMaster` choice and the version string's reading; it keeps no state and may use
//! only the client and the cluster's version type.

use bson::doc;

use super::client::{LiveClient, LiveError};
use crate::cluster::ServerVersion;

/// The mongos's release line and its full version string (`buildInfo.version`); an error naming
/// what the target is when it is not a mongos.
pub(super) async fn mongos_version(
    client: &LiveClient,
) -> Result<(ServerVersion, String), LiveError> {
    // `hello`, or `isMaster` before 4.4.2: the client asks it once, before any read.
    let hello = client.hello().await?;
    if hello.get_str("msg") != Ok("isdbgrid") {
        let what = if hello.get_str("setName").is_ok() {
            "a replica-set member"
        } else {
            "a standalone mongod"
        };
        return Err(super::poller::bad(format!(
            "{} is {what}, not a mongos (hello.msg is not \"isdbgrid\"): point shardtop at a mongos of the sharded cluster",
            client.target()
        )));
    }
    let info = client.command("admin", doc! {"buildInfo": 1}).await?;
    let text = info.get_str("version").unwrap_or("8.0");
    let v = text.parse::<ServerVersion>().map_err(super::poller::bad)?;
    Ok((v, text.to_string()))
}
