//! TOSCA Simple Profile 1.0/1.1 validation on top of vetro-kwalify.
