-- Each environment and template keeps its item of the API's list, as JSON
-- text, in its row (`list_item`), rewritten by triggers whenever a column it
-- shows changes (an environment's status changes through the session
-- triggers of 0008). A page of a list is then the stored items joined in
-- page order: the database neither builds nor parses JSON per request.

ALTER TABLE environments ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';
ALTER TABLE templates ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';

CREATE FUNCTION vetro_environments_list_item() RETURNS trigger AS $$
BEGIN
    NEW.list_item := json_build_object('id', NEW.id,
        'name', NEW.name,
        'tenant_id', NEW.project_id,
        'version', NEW.version,
        'description_text', NEW.description_text,
        'created', NEW.created,
        'updated', NEW.updated,
        'status', NEW.status)::text;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER environments_list_item BEFORE INSERT OR UPDATE OF id, name, project_id, version, description_text, created, updated, status
    ON environments FOR EACH ROW EXECUTE FUNCTION vetro_environments_list_item();

UPDATE environments SET list_item = json_build_object('id', id,
        'name', name,
        'tenant_id', project_id,
        'version', version,
        'description_text', description_text,
        'created', created,
        'updated', updated,
        'status', status)::text;

CREATE FUNCTION vetro_templates_list_item() RETURNS trigger AS $$
BEGIN
    NEW.list_item := json_build_object('id', NEW.id,
        'name', NEW.name,
        'tenant_id', NEW.project_id,
        'version', NEW.version,
        'description_text', NEW.description_text,
        'is_public', (NEW.is_public <> 0),
        'created', NEW.created,
        'updated', NEW.updated)::text;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER templates_list_item BEFORE INSERT OR UPDATE OF id, name, project_id, version, description_text, is_public, created, updated
    ON templates FOR EACH ROW EXECUTE FUNCTION vetro_templates_list_item();

UPDATE templates SET list_item = json_build_object('id', id,
        'name', name,
        'tenant_id', project_id,
        'version', version,
        'description_text', description_text,
        'is_public', (is_public <> 0),
        'created', created,
        'updated', updated)::text;

-- A deployment's item of the list in two parts: what never changes, written
-- as JSON once when the task is queued (`list_body`; see deployments.rs), and
-- the state, times and result, joined to it as text per page. Existing tasks
-- get theirs here, the model's `applications` named `services` as Murano
-- showed it.
ALTER TABLE tasks ADD COLUMN list_body TEXT NOT NULL DEFAULT '{}';

UPDATE tasks SET list_body = json_build_object(
    'id', id,
    'environment_id', environment_id,
    'description', CASE
        WHEN jsonb_typeof(description::jsonb) = 'object' AND description::jsonb ? 'applications'
        THEN ((description::jsonb - 'applications')
            || jsonb_build_object('services', description::jsonb -> 'applications'))::json
        ELSE description::json END,
    'action', CASE WHEN kind = 'delete' THEN NULL ELSE payload::json END,
    'created', created,
    'kind', kind)::text;

-- Each package keeps its item of the catalog's list the same way, its
-- categories included (in code point order), rewritten when the package's
-- shown columns or its categories change. The archive is never read for it.
ALTER TABLE packages ADD COLUMN list_item TEXT NOT NULL DEFAULT '{}';

CREATE FUNCTION vetro_package_list_item(pkg TEXT) RETURNS TEXT AS $$
    SELECT json_build_object(
        'id', p.id,
        'fully_qualified_name', p.fully_qualified_name,
        'name', p.name,
        'type', p.type,
        'version', p.version,
        'author', p.author,
        'supplier', p.supplier::json,
        'description', p.description,
        'enabled', (p.enabled <> 0),
        'is_public', (p.is_public <> 0),
        'owner_id', p.owner_id,
        'tags', p.tags::json,
        'categories', (SELECT COALESCE(json_agg(c.name ORDER BY c.name COLLATE "C"), '[]'::json) FROM package_categories pc JOIN categories c ON c.id = pc.category_id WHERE pc.package_id = p.id),
        'class_definitions', p.class_definitions::json,
        'created', p.created,
        'updated', p.updated)::text
    FROM packages p WHERE p.id = pkg;
$$ LANGUAGE sql STABLE;

CREATE FUNCTION vetro_package_list_item_update() RETURNS trigger AS $$
DECLARE
    pkg TEXT;
BEGIN
    IF TG_TABLE_NAME = 'packages' THEN
        pkg := NEW.id;
    ELSIF TG_OP = 'DELETE' THEN
        pkg := OLD.package_id;
    ELSE
        pkg := NEW.package_id;
    END IF;
    UPDATE packages SET list_item = vetro_package_list_item(pkg) WHERE id = pkg;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER packages_list_item AFTER INSERT OR UPDATE OF name, description, tags, is_public, enabled, updated, version, author, supplier, type, fully_qualified_name, owner_id, class_definitions, created
    ON packages FOR EACH ROW EXECUTE FUNCTION vetro_package_list_item_update();

CREATE TRIGGER package_categories_list_item AFTER INSERT OR DELETE
    ON package_categories FOR EACH ROW EXECUTE FUNCTION vetro_package_list_item_update();

UPDATE packages SET list_item = vetro_package_list_item(id);

-- The catalog's orders (by code point, as the search sorts), so that a page
-- without search words walks an index instead of sorting every visible
-- package.
CREATE INDEX packages_name_order ON packages (name COLLATE "C", id COLLATE "C");
CREATE INDEX packages_fqn_order ON packages (fully_qualified_name COLLATE "C", id COLLATE "C");
CREATE INDEX packages_created_order ON packages (created COLLATE "C", id COLLATE "C");

-- Templates in page order: a project's own and public ones are one walk.
CREATE INDEX templates_page ON templates (created, id);
