-- Each environment and template keeps its item of the API's list, as JSON
-- text, in its row (`list_item`), rewritten by triggers whenever a column it
-- shows changes (an environment's status changes through the session
-- triggers of 0008). A page of a list is then the stored items joined in
-- page order: the database neither builds nor parses JSON per request.

ALTER TABLE environments ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';
ALTER TABLE templates ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';

CREATE TRIGGER environments_list_item_insert AFTER INSERT ON environments
BEGIN
    UPDATE environments SET list_item = json_object('id', NEW.id,
        'name', NEW.name,
        'tenant_id', NEW.project_id,
        'version', NEW.version,
        'description_text', NEW.description_text,
        'created', NEW.created,
        'updated', NEW.updated,
        'status', NEW.status)
    WHERE id = NEW.id;
END;

CREATE TRIGGER environments_list_item_update AFTER UPDATE OF id, name, project_id, version, description_text, created, updated, status ON environments
BEGIN
    UPDATE environments SET list_item = json_object('id', NEW.id,
        'name', NEW.name,
        'tenant_id', NEW.project_id,
        'version', NEW.version,
        'description_text', NEW.description_text,
        'created', NEW.created,
        'updated', NEW.updated,
        'status', NEW.status)
    WHERE id = NEW.id;
END;

UPDATE environments SET list_item = json_object('id', id,
        'name', name,
        'tenant_id', project_id,
        'version', version,
        'description_text', description_text,
        'created', created,
        'updated', updated,
        'status', status);

CREATE TRIGGER templates_list_item_insert AFTER INSERT ON templates
BEGIN
    UPDATE templates SET list_item = json_object('id', NEW.id,
        'name', NEW.name,
        'tenant_id', NEW.project_id,
        'version', NEW.version,
        'description_text', NEW.description_text,
        'is_public', json(CASE WHEN NEW.is_public <> 0 THEN 'true' ELSE 'false' END),
        'created', NEW.created,
        'updated', NEW.updated)
    WHERE id = NEW.id;
END;

CREATE TRIGGER templates_list_item_update AFTER UPDATE OF id, name, project_id, version, description_text, is_public, created, updated ON templates
BEGIN
    UPDATE templates SET list_item = json_object('id', NEW.id,
        'name', NEW.name,
        'tenant_id', NEW.project_id,
        'version', NEW.version,
        'description_text', NEW.description_text,
        'is_public', json(CASE WHEN NEW.is_public <> 0 THEN 'true' ELSE 'false' END),
        'created', NEW.created,
        'updated', NEW.updated)
    WHERE id = NEW.id;
END;

UPDATE templates SET list_item = json_object('id', id,
        'name', name,
        'tenant_id', project_id,
        'version', version,
        'description_text', description_text,
        'is_public', json(CASE WHEN is_public <> 0 THEN 'true' ELSE 'false' END),
        'created', created,
        'updated', updated);

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

-- Each package keeps its item of the catalog's list the same way, its
-- categories included (in code point order), rewritten when the package's
-- shown columns or its categories change. The archive is never read for it.
ALTER TABLE packages ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';

CREATE TRIGGER packages_list_item_insert AFTER INSERT ON packages
BEGIN
    UPDATE packages SET list_item = json_object(
        'id', packages.id,
        'fully_qualified_name', packages.fully_qualified_name,
        'name', packages.name,
        'type', packages.type,
        'version', packages.version,
        'author', packages.author,
        'supplier', json(packages.supplier),
        'description', packages.description,
        'enabled', json(CASE WHEN packages.enabled <> 0 THEN 'true' ELSE 'false' END),
        'is_public', json(CASE WHEN packages.is_public <> 0 THEN 'true' ELSE 'false' END),
        'owner_id', packages.owner_id,
        'tags', json(packages.tags),
        'categories', (SELECT json_group_array(c.name ORDER BY c.name) FROM package_categories pc
            JOIN categories c ON c.id = pc.category_id WHERE pc.package_id = packages.id),
        'class_definitions', json(packages.class_definitions),
        'created', packages.created,
        'updated', packages.updated)
    WHERE id = NEW.id;
END;

CREATE TRIGGER packages_list_item_update AFTER UPDATE OF name, description, tags, is_public, enabled, updated, version, author, supplier, type, fully_qualified_name, owner_id, class_definitions, created ON packages
BEGIN
    UPDATE packages SET list_item = json_object(
        'id', packages.id,
        'fully_qualified_name', packages.fully_qualified_name,
        'name', packages.name,
        'type', packages.type,
        'version', packages.version,
        'author', packages.author,
        'supplier', json(packages.supplier),
        'description', packages.description,
        'enabled', json(CASE WHEN packages.enabled <> 0 THEN 'true' ELSE 'false' END),
        'is_public', json(CASE WHEN packages.is_public <> 0 THEN 'true' ELSE 'false' END),
        'owner_id', packages.owner_id,
        'tags', json(packages.tags),
        'categories', (SELECT json_group_array(c.name ORDER BY c.name) FROM package_categories pc
            JOIN categories c ON c.id = pc.category_id WHERE pc.package_id = packages.id),
        'class_definitions', json(packages.class_definitions),
        'created', packages.created,
        'updated', packages.updated)
    WHERE id = NEW.id;
END;

CREATE TRIGGER package_categories_list_item_insert AFTER INSERT ON package_categories
BEGIN
    UPDATE packages SET list_item = json_object(
        'id', packages.id,
        'fully_qualified_name', packages.fully_qualified_name,
        'name', packages.name,
        'type', packages.type,
        'version', packages.version,
        'author', packages.author,
        'supplier', json(packages.supplier),
        'description', packages.description,
        'enabled', json(CASE WHEN packages.enabled <> 0 THEN 'true' ELSE 'false' END),
        'is_public', json(CASE WHEN packages.is_public <> 0 THEN 'true' ELSE 'false' END),
        'owner_id', packages.owner_id,
        'tags', json(packages.tags),
        'categories', (SELECT json_group_array(c.name ORDER BY c.name) FROM package_categories pc
            JOIN categories c ON c.id = pc.category_id WHERE pc.package_id = packages.id),
        'class_definitions', json(packages.class_definitions),
        'created', packages.created,
        'updated', packages.updated)
    WHERE id = NEW.package_id;
END;

CREATE TRIGGER package_categories_list_item_delete AFTER DELETE ON package_categories
BEGIN
    UPDATE packages SET list_item = json_object(
        'id', packages.id,
        'fully_qualified_name', packages.fully_qualified_name,
        'name', packages.name,
        'type', packages.type,
        'version', packages.version,
        'author', packages.author,
        'supplier', json(packages.supplier),
        'description', packages.description,
        'enabled', json(CASE WHEN packages.enabled <> 0 THEN 'true' ELSE 'false' END),
        'is_public', json(CASE WHEN packages.is_public <> 0 THEN 'true' ELSE 'false' END),
        'owner_id', packages.owner_id,
        'tags', json(packages.tags),
        'categories', (SELECT json_group_array(c.name ORDER BY c.name) FROM package_categories pc
            JOIN categories c ON c.id = pc.category_id WHERE pc.package_id = packages.id),
        'class_definitions', json(packages.class_definitions),
        'created', packages.created,
        'updated', packages.updated)
    WHERE id = OLD.package_id;
END;

UPDATE packages SET list_item = json_object(
        'id', packages.id,
        'fully_qualified_name', packages.fully_qualified_name,
        'name', packages.name,
        'type', packages.type,
        'version', packages.version,
        'author', packages.author,
        'supplier', json(packages.supplier),
        'description', packages.description,
        'enabled', json(CASE WHEN packages.enabled <> 0 THEN 'true' ELSE 'false' END),
        'is_public', json(CASE WHEN packages.is_public <> 0 THEN 'true' ELSE 'false' END),
        'owner_id', packages.owner_id,
        'tags', json(packages.tags),
        'categories', (SELECT json_group_array(c.name ORDER BY c.name) FROM package_categories pc
            JOIN categories c ON c.id = pc.category_id WHERE pc.package_id = packages.id),
        'class_definitions', json(packages.class_definitions),
        'created', packages.created,
        'updated', packages.updated);
