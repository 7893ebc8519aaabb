-- An environment's status is kept in its row, so listing environments reads
-- no sessions. Triggers on sessions keep it current.
ALTER TABLE environments ADD COLUMN status TEXT NOT NULL DEFAULT 'ready';

-- Murano's status of each environment, from its sessions taken newest first
-- (by version, then last change): the newest session that is deploying,
-- deleting, failed or deployed decides, unless it is deployed; then an opened
-- session newer than it (or any, when there is none) makes the environment
-- pending; otherwise it is ready. (`environments::status_of` is the same rule.)
CREATE VIEW environment_status AS
SELECT e.id AS environment_id,
    CASE
        WHEN d.state IS NOT NULL AND d.state <> 'deployed' THEN d.state
        WHEN o.id IS NOT NULL AND (d.id IS NULL OR o.version > d.version
            OR (o.version = d.version AND o.updated > d.updated)) THEN 'pending'
        ELSE 'ready'
    END AS status
FROM environments e
LEFT JOIN sessions d ON d.id = (SELECT s.id FROM sessions s WHERE s.environment_id = e.id
    AND s.state IN ('deploying', 'deleting', 'deploy failure', 'delete failure', 'deployed')
    ORDER BY s.version DESC, s.updated DESC LIMIT 1)
LEFT JOIN sessions o ON o.id = (SELECT s.id FROM sessions s WHERE s.environment_id = e.id
    AND s.state = 'opened' ORDER BY s.version DESC, s.updated DESC LIMIT 1);

UPDATE environments SET status =
    (SELECT v.status FROM environment_status v WHERE v.environment_id = environments.id);

CREATE TRIGGER sessions_insert_status AFTER INSERT ON sessions
BEGIN
    UPDATE environments SET status = (SELECT v.status FROM environment_status v
        WHERE v.environment_id = NEW.environment_id) WHERE id = NEW.environment_id;
END;

CREATE TRIGGER sessions_update_status AFTER UPDATE OF state, version, updated ON sessions
BEGIN
    UPDATE environments SET status = (SELECT v.status FROM environment_status v
        WHERE v.environment_id = NEW.environment_id) WHERE id = NEW.environment_id;
END;

CREATE TRIGGER sessions_delete_status AFTER DELETE ON sessions
BEGIN
    UPDATE environments SET status = (SELECT v.status FROM environment_status v
        WHERE v.environment_id = OLD.environment_id) WHERE id = OLD.environment_id;
END;
