-- The classes each package defines, one row each, so that finding the package
-- of a class (what the engine asks for every class it meets) reads the few
-- packages that define it instead of the whole catalog.
CREATE TABLE package_classes (
    class_name TEXT NOT NULL,
    package_id TEXT NOT NULL REFERENCES packages (id) ON DELETE CASCADE,
    PRIMARY KEY (class_name, package_id)
);
CREATE INDEX package_classes_package ON package_classes (package_id);
CREATE INDEX packages_fully_qualified_name ON packages (fully_qualified_name);

INSERT OR IGNORE INTO package_classes (class_name, package_id)
SELECT j.value, p.id FROM packages p, json_each(p.class_definitions) j
WHERE j.type = 'text';
