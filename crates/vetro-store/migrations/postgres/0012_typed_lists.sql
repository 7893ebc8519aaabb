-- The API's list items are no longer kept as JSON text in the rows: the
-- server builds every answer from typed rows, with its one definition of
-- each shape. The copies and their triggers go; a package's categories,
-- which showed in its list item, now raise the lists' version themselves.

DROP TRIGGER environments_list_item ON environments;
DROP FUNCTION vetro_environments_list_item();
ALTER TABLE environments DROP COLUMN list_item;

DROP TRIGGER templates_list_item ON templates;
DROP FUNCTION vetro_templates_list_item();
ALTER TABLE templates DROP COLUMN list_item;

DROP TRIGGER packages_list_item ON packages;
DROP TRIGGER package_categories_list_item ON package_categories;
DROP FUNCTION vetro_package_list_item_update();
DROP FUNCTION vetro_package_list_item(TEXT);
ALTER TABLE packages DROP COLUMN list_item;

DROP TRIGGER tasks_list_version ON tasks;
ALTER TABLE tasks DROP COLUMN list_body;

-- The columns a deployment's item shows (not the lease's).
CREATE CONSTRAINT TRIGGER tasks_list_version
    AFTER INSERT OR DELETE OR UPDATE OF id, project_id, environment_id, kind, state, result,
        is_exception, created, updated, started, finished, payload, description ON tasks
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION vetro_project_lists_changed();

CREATE CONSTRAINT TRIGGER package_categories_list_version AFTER INSERT OR DELETE ON package_categories
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION vetro_shared_lists_changed();
