-- Indexes that make a page of a listing cost the same however many rows the
-- project has: environments and deployments in page order, the sessions that
-- decide an environment's status, the error and warning counts of a deployment,
-- the newest report about an object (lastStatus).
CREATE INDEX environments_project_page ON environments (project_id, created, id);
CREATE INDEX sessions_environment_order ON sessions (environment_id, version, updated);
CREATE INDEX sessions_environment_state ON sessions (environment_id, state, version, updated);
CREATE INDEX tasks_project_page ON tasks (project_id, created, id);
CREATE INDEX tasks_environment_page ON tasks (environment_id, created, id);
CREATE INDEX status_reports_task_level ON status_reports (task_id, level);
CREATE INDEX status_reports_entity ON status_reports (entity_id);
