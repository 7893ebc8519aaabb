-- A version of what the API's lists show, per project (its environments and
-- deployments) and one for what every project may see ('*': templates and
-- packages, public ones included), raised by triggers with every write to
-- those rows. A process may keep a page it read with the versions it was
-- read at and answer it again while they are unchanged (see json_page.rs).
--
-- The triggers run at commit (deferred constraint triggers), so a
-- transaction locks a version row only as its last step: two transactions
-- may wait for each other's version row, never deadlock over it.

CREATE TABLE list_versions (
    scope TEXT PRIMARY KEY NOT NULL,
    version BIGINT NOT NULL
);

CREATE FUNCTION vetro_bump_list_version(s TEXT) RETURNS void AS $$
BEGIN
    INSERT INTO list_versions (scope, version) VALUES (s, 1)
        ON CONFLICT (scope) DO UPDATE SET version = list_versions.version + 1;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION vetro_project_lists_changed() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM vetro_bump_list_version(OLD.project_id);
    ELSE
        PERFORM vetro_bump_list_version(NEW.project_id);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION vetro_report_lists_changed() RETURNS trigger AS $$
BEGIN
    PERFORM vetro_bump_list_version(t.project_id) FROM tasks t WHERE t.id = NEW.task_id;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION vetro_shared_lists_changed() RETURNS trigger AS $$
BEGIN
    PERFORM vetro_bump_list_version('*');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER environments_list_version AFTER INSERT OR UPDATE OR DELETE ON environments
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION vetro_project_lists_changed();

-- The columns a deployment's item shows (not the lease's).
CREATE CONSTRAINT TRIGGER tasks_list_version
    AFTER INSERT OR DELETE OR UPDATE OF id, project_id, environment_id, kind, state, result,
        is_exception, created, updated, started, finished, list_body ON tasks
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION vetro_project_lists_changed();

-- An error or a warning changes its deployment's state in the list.
CREATE CONSTRAINT TRIGGER status_reports_list_version AFTER INSERT ON status_reports
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.level IN ('error', 'warning'))
    EXECUTE FUNCTION vetro_report_lists_changed();

CREATE CONSTRAINT TRIGGER templates_list_version AFTER INSERT OR UPDATE OR DELETE ON templates
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION vetro_shared_lists_changed();

-- A package's categories show through its list_item, rewritten in its row.
CREATE CONSTRAINT TRIGGER packages_list_version AFTER INSERT OR UPDATE OR DELETE ON packages
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION vetro_shared_lists_changed();
