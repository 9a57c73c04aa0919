//! (placeholder: see ARCHITECTURE.md)
