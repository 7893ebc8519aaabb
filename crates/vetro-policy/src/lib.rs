//! Object model to murano:* tables and a Datalog engine with Congress syntax.
