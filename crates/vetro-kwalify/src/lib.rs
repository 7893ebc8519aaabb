//! A kwalify-style grammar engine: grammars read as data, every problem collected.
