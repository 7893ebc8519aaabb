-- Live views in other processes learn of status reports and task endings
-- from a NOTIFY on vetro_task_writes, sent as the writing transaction
-- commits (the payload is the task's id).
CREATE FUNCTION vetro_notify_task_write() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('vetro_task_writes',
        coalesce(to_jsonb(NEW) ->> 'task_id', to_jsonb(NEW) ->> 'id'));
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER status_reports_notify AFTER INSERT ON status_reports
    FOR EACH ROW EXECUTE FUNCTION vetro_notify_task_write();
CREATE TRIGGER tasks_state_notify AFTER UPDATE OF state ON tasks
    FOR EACH ROW EXECUTE FUNCTION vetro_notify_task_write();
