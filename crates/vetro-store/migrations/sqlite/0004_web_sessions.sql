-- The web dashboard's sign-in sessions, so they survive a restart of the
-- service. Rows are keyed by the SHA-256 of the cookie's value (reading the
-- table gives no usable cookie). A token sign-in keeps the token's hash and
-- is checked against the tokens table on every request (a revoked or
-- expired token ends the session); a password sign-in keeps the principal
-- the identity service vouched for.
CREATE TABLE web_sessions (
    id_hash TEXT PRIMARY KEY,
    token_hash TEXT,
    project_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    is_admin INTEGER NOT NULL DEFAULT 0,
    csrf TEXT NOT NULL,
    created TEXT NOT NULL,
    expires TEXT NOT NULL
);
CREATE INDEX web_sessions_expires ON web_sessions (expires);

-- What a session remembers between pages (open configuration sessions,
-- half-filled forms, the next page's message), one JSON value per name.
CREATE TABLE web_session_values (
    id_hash TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (id_hash, name)
);
