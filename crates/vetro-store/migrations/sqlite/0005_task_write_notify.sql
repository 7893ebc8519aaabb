-- Nothing to add on SQLite: live views in other processes read the
-- database's change counter (PRAGMA data_version) instead of a NOTIFY.
SELECT 1;
