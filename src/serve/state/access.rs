//! `serve --user-roles`: the simulated user (`shardtop@admin`) and the privileges of its built-in
//! roles. Data only; `dispatch::access` checks commands against it and answers
//! `connectionStatus`.
//!
//! May import nothing of `serve` above `state`.

use bson::{Bson, Document, doc};

use crate::cluster::privileges::{Privilege, built_in_role};

/// The simulated user.
#[derive(Clone, Debug)]
pub struct Access {
    pub(crate) roles: Vec<(String, String)>,
    pub(crate) privileges: Vec<Privilege>,
}

/// The user's name in `connectionStatus`.
const USER: &str = "shardtop";

impl Access {
    /// `ROLE@DB,…` (`@admin` when no database is given); an unknown role is an error.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut roles = Vec::new();
        let mut privileges = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (role, db) = item.split_once('@').unwrap_or((item, "admin"));
            let granted = built_in_role(role, db).ok_or_else(|| {
                format!(
                    "{item:?}: not a built-in role this simulator knows (read@DB, readWrite@DB, enableSharding, readAnyDatabase, readWriteAnyDatabase, clusterMonitor, clusterManager, clusterAdmin, root)"
                )
            })?;
            roles.push((role.to_string(), db.to_string()));
            privileges.extend(granted);
        }
        Ok(Self { roles, privileges })
    }

    pub(crate) fn auth_info(&self, show_privileges: bool) -> Document {
        let roles: Vec<Bson> = self
            .roles
            .iter()
            .map(|(r, d)| Bson::Document(doc! {"role": r, "db": d}))
            .collect();
        let mut info = doc! {
            "authenticatedUsers": [{"user": USER, "db": "admin"}],
            "authenticatedUserRoles": roles,
        };
        if show_privileges {
            let p: Vec<Bson> = self
                .privileges
                .iter()
                .map(|p| Bson::Document(p.to_document()))
                .collect();
            info.insert("authenticatedUserPrivileges", p);
        }
        info
    }
}
