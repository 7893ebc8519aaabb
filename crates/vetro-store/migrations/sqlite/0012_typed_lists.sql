-- The API's list items are no longer kept as JSON text in the rows: the
-- server builds every answer from typed rows, with its one definition of
-- each shape. The copies, their views and triggers go; a package's
-- categories, which showed in its list item, now raise the lists' version
-- themselves.

DROP TRIGGER environments_list_item_insert;
DROP TRIGGER environments_list_item_update;
DROP VIEW environment_list_item;
ALTER TABLE environments DROP COLUMN list_item;

DROP TRIGGER templates_list_item_insert;
DROP TRIGGER templates_list_item_update;
DROP VIEW template_list_item;
ALTER TABLE templates DROP COLUMN list_item;

DROP TRIGGER packages_list_item_insert;
DROP TRIGGER packages_list_item_update;
DROP TRIGGER package_categories_list_item_insert;
DROP TRIGGER package_categories_list_item_delete;
DROP VIEW package_list_item;
ALTER TABLE packages DROP COLUMN list_item;

DROP TRIGGER tasks_list_version_update;
ALTER TABLE tasks DROP COLUMN list_body;

-- The columns a deployment's item shows (not the lease's).
CREATE TRIGGER tasks_list_version_update AFTER UPDATE OF id, project_id, environment_id, kind, state, result, is_exception, created, updated, started, finished, payload, description ON tasks
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES (NEW.project_id, 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = NEW.project_id;
END;

CREATE TRIGGER package_categories_list_version_insert AFTER INSERT ON package_categories
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ('*', 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = '*';
END;

CREATE TRIGGER package_categories_list_version_delete AFTER DELETE ON package_categories
BEGIN
    INSERT OR IGNORE INTO list_versions (scope, version) VALUES ('*', 0);
    UPDATE list_versions SET version = version + 1 WHERE scope = '*';
END;
