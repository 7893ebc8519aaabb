-- A version of what the API's lists show, per project (its environments and
-- deployments) and one for what every project may see ('*': templates and
-- packages, public ones included), raised by triggers with every write to
-- those rows. A process may keep a page it read with the versions it was
-- read at and answer it again while they are unchanged (see json_page.rs).

CREATE TABLE list_versions (
    scope TEXT PRIMARY KEY NOT NULL,
    version BIGINT NOT NULL
);

CREATE TRIGGER environments_list_version_insert AFTER INSERT ON environments
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES (NEW.project_id, 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = NEW.project_id;
END;

CREATE TRIGGER environments_list_version_update AFTER UPDATE ON environments
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES (NEW.project_id, 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = NEW.project_id;
END;

CREATE TRIGGER environments_list_version_delete AFTER DELETE ON environments
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES (OLD.project_id, 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = OLD.project_id;
END;

-- The columns a deployment's item shows (not the lease's).

CREATE TRIGGER tasks_list_version_insert AFTER INSERT ON tasks
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES (NEW.project_id, 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = NEW.project_id;
END;

CREATE TRIGGER tasks_list_version_update AFTER UPDATE OF id, project_id, environment_id, kind, state, result, is_exception, created, updated, started, finished, list_body ON tasks
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES (NEW.project_id, 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = NEW.project_id;
END;

CREATE TRIGGER tasks_list_version_delete AFTER DELETE ON tasks
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES (OLD.project_id, 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = OLD.project_id;
END;

-- An error or a warning changes its deployment's state in the list.

CREATE TRIGGER status_reports_list_version AFTER INSERT ON status_reports
    WHEN NEW.level IN ('error', 'warning')
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ((SELECT t.project_id FROM tasks t WHERE t.id = NEW.task_id), 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = (SELECT t.project_id FROM tasks t WHERE t.id = NEW.task_id);
END;

CREATE TRIGGER templates_list_version_insert AFTER INSERT ON templates
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ('*', 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = '*';
END;

CREATE TRIGGER templates_list_version_update AFTER UPDATE ON templates
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ('*', 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = '*';
END;

CREATE TRIGGER templates_list_version_delete AFTER DELETE ON templates
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ('*', 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = '*';
END;

-- A package's categories show through its list_item, rewritten in its row.

CREATE TRIGGER packages_list_version_insert AFTER INSERT ON packages
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ('*', 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = '*';
END;

CREATE TRIGGER packages_list_version_update AFTER UPDATE ON packages
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ('*', 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = '*';
END;

CREATE TRIGGER packages_list_version_delete AFTER DELETE ON packages
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ('*', 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = '*';
END;
