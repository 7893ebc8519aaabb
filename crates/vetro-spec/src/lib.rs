//! InfraRed-style .spec files: run-time command lines, value sources, settings tree.
