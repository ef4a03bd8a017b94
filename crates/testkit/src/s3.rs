//! The S3 server of the tests: `PARIO_TEST_S3_ENDPOINT`,
//! `PARIO_TEST_S3_ACCESS_KEY` and `PARIO_TEST_S3_SECRET_KEY`
//! (scripts/test-object-servers.sh exports them). Without them a test says
//! it cannot run ([`crate::cannot_run`]: a failure under CI). Each test
//! makes its own bucket with a signed PUT (curl's SigV4).

use std::process::Command;

/// Where the test server is and the keys it takes.
#[derive(Clone)]
pub struct S3Server {
    pub endpoint: String,
    pub access_key: String,
    pub secret_key: String,
}

impl S3Server {
    /// The server from the environment, or None after saying why `what`
    /// cannot run.
    pub fn from_env(what: &str) -> Option<S3Server> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        match (
            var("PARIO_TEST_S3_ENDPOINT"),
            var("PARIO_TEST_S3_ACCESS_KEY"),
            var("PARIO_TEST_S3_SECRET_KEY"),
        ) {
            (Some(endpoint), Some(access_key), Some(secret_key)) => Some(S3Server {
                endpoint: endpoint.trim_end_matches('/').to_string(),
                access_key,
                secret_key,
            }),
            _ => {
                crate::cannot_run(
                    "S3",
                    what,
                    "PARIO_TEST_S3_ENDPOINT/ACCESS_KEY/SECRET_KEY unset \
                     (run the tests under scripts/test-object-servers.sh)",
                );
                None
            }
        }
    }

    /// A new bucket named after `tag` and this process; panics when the
    /// server refuses it.
    pub fn bucket(&self, tag: &str) -> String {
        let name = format!("pario-{tag}-{}", std::process::id());
        let out = Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "--max-time",
                "20",
            ])
            .args(["--aws-sigv4", "aws:amz:us-east-1:s3", "-X", "PUT"])
            .args(["-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "--user"])
            .arg(format!("{}:{}", self.access_key, self.secret_key))
            .arg(format!("{}/{name}", self.endpoint))
            .output()
            .expect("curl runs");
        let code = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            code == "200" || code == "409",
            "creating bucket {name}: HTTP {code}"
        );
        name
    }

    /// The variables a pario process needs to reach the server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", self.access_key.clone()),
            ("AWS_SECRET_ACCESS_KEY", self.secret_key.clone()),
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
        ]
    }

    /// Whether the server checks signatures (`PARIO_TEST_S3_NO_AUTH=1`
    /// says it does not, as moto's server).
    pub fn checks_credentials(&self) -> bool {
        std::env::var("PARIO_TEST_S3_NO_AUTH").map_or(true, |v| v != "1")
    }
}
