-- Each environment, template and package keeps its item of the API's list,
-- as JSON text, in its row (`list_item`), rewritten by triggers whenever
-- something it shows changes (an environment's status changes through the
-- session triggers of 0008; a package's categories through
-- package_categories). A page of a list is then the stored items joined in
-- page order: the database neither builds nor parses JSON per request. The
-- views `*_list_item` say what each item holds.

ALTER TABLE environments ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';
ALTER TABLE templates ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';
ALTER TABLE packages ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';

CREATE VIEW environment_list_item AS SELECT t.id, json_object(
        'id', t.id,
        'name', t.name,
        'tenant_id', t.project_id,
        'version', t.version,
        'description_text', t.description_text,
        'created', t.created,
        'updated', t.updated,
        'status', t.status) AS item
FROM environments t;

CREATE TRIGGER environments_list_item_insert AFTER INSERT ON environments
BEGIN
    UPDATE environments SET list_item = (SELECT v.item FROM environment_list_item v WHERE v.id = NEW.id) WHERE id = NEW.id;
END;

CREATE TRIGGER environments_list_item_update AFTER UPDATE OF id, name, project_id, version, description_text, created, updated, status ON environments
BEGIN
    UPDATE environments SET list_item = (SELECT v.item FROM environment_list_item v WHERE v.id = NEW.id) WHERE id = NEW.id;
END;

UPDATE environments SET list_item = (SELECT v.item FROM environment_list_item v WHERE v.id = environments.id);

CREATE VIEW template_list_item AS SELECT t.id, json_object(
        'id', t.id,
        'name', t.name,
        'tenant_id', t.project_id,
        'version', t.version,
        'description_text', t.description_text,
        'is_public', json(CASE WHEN t.is_public <> 0 THEN 'true' ELSE 'false' END),
        'created', t.created,
        'updated', t.updated) AS item
FROM templates t;

CREATE TRIGGER templates_list_item_insert AFTER INSERT ON templates
BEGIN
    UPDATE templates SET list_item = (SELECT v.item FROM template_list_item v WHERE v.id = NEW.id) WHERE id = NEW.id;
END;

CREATE TRIGGER templates_list_item_update AFTER UPDATE OF id, name, project_id, version, description_text, is_public, created, updated ON templates
BEGIN
    UPDATE templates SET list_item = (SELECT v.item FROM template_list_item v WHERE v.id = NEW.id) WHERE id = NEW.id;
END;

UPDATE templates SET list_item = (SELECT v.item FROM template_list_item v WHERE v.id = templates.id);

CREATE VIEW package_list_item AS SELECT t.id, json_object(
        'id', t.id,
        'fully_qualified_name', t.fully_qualified_name,
        'name', t.name,
        'type', t.type,
        'version', t.version,
        'author', t.author,
        'supplier', json(t.supplier),
        'description', t.description,
        'enabled', json(CASE WHEN t.enabled <> 0 THEN 'true' ELSE 'false' END),
        'is_public', json(CASE WHEN t.is_public <> 0 THEN 'true' ELSE 'false' END),
        'owner_id', t.owner_id,
        'tags', json(t.tags),
        -- Ordered in a subquery: an ORDER BY inside the aggregate needs SQLite
        -- 3.44, and older sqlite3 tools could not read the database's schema.
        'categories', (SELECT json_group_array(o.name) FROM (SELECT c.name FROM package_categories pc
            JOIN categories c ON c.id = pc.category_id WHERE pc.package_id = t.id ORDER BY c.name) o),
        'class_definitions', json(t.class_definitions),
        'created', t.created,
        'updated', t.updated) AS item
FROM packages t;

CREATE TRIGGER packages_list_item_insert AFTER INSERT ON packages
BEGIN
    UPDATE packages SET list_item = (SELECT v.item FROM package_list_item v WHERE v.id = NEW.id) WHERE id = NEW.id;
END;

CREATE TRIGGER packages_list_item_update AFTER UPDATE OF name, description, tags, is_public, enabled, updated, version, author, supplier, type, fully_qualified_name, owner_id, class_definitions, created ON packages
BEGIN
    UPDATE packages SET list_item = (SELECT v.item FROM package_list_item v WHERE v.id = NEW.id) WHERE id = NEW.id;
END;

UPDATE packages SET list_item = (SELECT v.item FROM package_list_item v WHERE v.id = packages.id);

CREATE TRIGGER package_categories_list_item_insert AFTER INSERT ON package_categories
BEGIN
    UPDATE packages SET list_item = (SELECT v.item FROM package_list_item v WHERE v.id = NEW.package_id) WHERE id = NEW.package_id;
END;

CREATE TRIGGER package_categories_list_item_delete AFTER DELETE ON package_categories
BEGIN
    UPDATE packages SET list_item = (SELECT v.item FROM package_list_item v WHERE v.id = OLD.package_id) WHERE id = OLD.package_id;
END;

-- A deployment's item of the list in two parts: what never changes, written
-- as JSON once when the task is queued (`list_body`; see deployments.rs), and
-- the state, times and result, joined to it as text per page. Existing tasks
-- get theirs here, the model's `applications` named `services` as Murano
-- showed it.
ALTER TABLE tasks ADD COLUMN list_body TEXT NOT NULL DEFAULT '{}';

UPDATE tasks SET list_body = json_object(
    'id', id,
    'environment_id', environment_id,
    'description', CASE
        WHEN json_type(description, '$.applications') IS NOT NULL THEN json_remove(
            json_set(description, '$.services', json_extract(description, '$.applications')),
            '$.applications')
        ELSE json(description) END,
    'action', CASE WHEN kind = 'delete' THEN NULL ELSE json(payload) END,
    'created', created,
    'kind', kind);

-- The catalog's orders, so that a page without search words walks an index
-- instead of sorting every visible package.
CREATE INDEX packages_name_order ON packages (name, id);
CREATE INDEX packages_fqn_order ON packages (fully_qualified_name, id);
CREATE INDEX packages_created_order ON packages (created, id);

-- Templates in page order: a project's own and public ones are one walk.
CREATE INDEX templates_page ON templates (created, id);
