-- vetro service schema (SQLite). JSON documents are stored as TEXT, timestamps as
-- fixed-width UTC text (YYYY-MM-DDTHH:MM:SS.ffffff) so they sort as strings.

CREATE TABLE tokens (
    token_hash TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    is_admin INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL
);

CREATE TABLE environments (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    name TEXT NOT NULL,
    description_text TEXT NOT NULL DEFAULT '',
    version INTEGER NOT NULL DEFAULT 0,
    model TEXT NOT NULL,
    cloud_state TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    UNIQUE (project_id, name)
);

CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    state TEXT NOT NULL,
    version INTEGER NOT NULL,
    model TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX sessions_environment ON sessions (environment_id);

CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    environment_id TEXT REFERENCES environments(id) ON DELETE CASCADE,
    session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('deploy', 'delete', 'action', 'static_action')),
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    payload TEXT NOT NULL,
    description TEXT,
    attempted_model TEXT,
    result TEXT,
    is_exception INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_expires_at TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    started TEXT,
    finished TEXT
);
-- At most one queued or running task per environment, enforced by the database.
CREATE UNIQUE INDEX tasks_one_active_per_environment
    ON tasks (environment_id) WHERE state IN ('queued', 'running') AND environment_id IS NOT NULL;
CREATE INDEX tasks_environment ON tasks (environment_id, created);
CREATE INDEX tasks_claimable ON tasks (state, created);

CREATE TABLE status_reports (
    id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    entity_id TEXT NOT NULL,
    entity TEXT NOT NULL,
    text TEXT NOT NULL,
    level TEXT NOT NULL,
    details TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX status_reports_task ON status_reports (task_id, seq);

CREATE TABLE packages (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL,
    fully_qualified_name TEXT NOT NULL,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    version TEXT NOT NULL,
    author TEXT NOT NULL DEFAULT '',
    supplier TEXT NOT NULL DEFAULT '{}',
    description TEXT NOT NULL DEFAULT '',
    enabled INTEGER NOT NULL DEFAULT 1,
    is_public INTEGER NOT NULL DEFAULT 0,
    tags TEXT NOT NULL DEFAULT '[]',
    class_definitions TEXT NOT NULL DEFAULT '[]',
    archive BLOB NOT NULL,
    logo BLOB,
    supplier_logo BLOB,
    ui_definition TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    UNIQUE (owner_id, fully_qualified_name)
);

CREATE TABLE categories (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);

CREATE TABLE package_categories (
    package_id TEXT NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    category_id TEXT NOT NULL REFERENCES categories(id),
    PRIMARY KEY (package_id, category_id)
);

-- The package versions a task resolved when it started, so a retry or a takeover
-- runs with the same code.
CREATE TABLE task_packages (
    task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    fully_qualified_name TEXT NOT NULL,
    package_id TEXT NOT NULL,
    version TEXT NOT NULL,
    PRIMARY KEY (task_id, fully_qualified_name)
);

CREATE TABLE templates (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    name TEXT NOT NULL,
    description_text TEXT NOT NULL DEFAULT '',
    version INTEGER NOT NULL DEFAULT 0,
    model TEXT NOT NULL,
    is_public INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    UNIQUE (project_id, name)
);

CREATE TABLE policies (
    project_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    updated TEXT NOT NULL
);

-- Named mutex rows: a transaction that updates one serializes with every other
-- transaction that does (catalog conflict checks).
CREATE TABLE locks (
    name TEXT PRIMARY KEY,
    ts TEXT NOT NULL
);
INSERT INTO locks (name, ts) VALUES ('catalog', '');
