//! SPIR-V front end.
