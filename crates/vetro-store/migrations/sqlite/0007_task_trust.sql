-- The Keystone trust a task acts through (services that authenticate with
-- Keystone create one from the caller to the service user for each task).
ALTER TABLE tasks ADD COLUMN trust_id TEXT;
