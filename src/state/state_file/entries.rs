//! Formats whose entries are read one by one (issue 40 §1, KEEP-2): a malformed entry is carried
//! through untouched, never dropped by a save; only a file of the wrong shape is damaged.

use std::{
    collections::BTreeMap,
    marker::PhantomData,
    ops::{Deref, DerefMut},
};

use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

use super::{FileFormat, Json};

/// The entries of a list file: those read, and those kept as they were.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed<T> {
    items: Vec<T>,
    unread: Vec<Value>,
}

impl<T> Listed<T> {
    /// The entries this process could not read, kept for the next save.
    pub fn unread(&self) -> &[Value] {
        &self.unread
    }
}

impl<T> Deref for Listed<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.items
    }
}

impl<T> DerefMut for Listed<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.items
    }
}

/// A JSON array whose entries are read one by one.
pub struct JsonList<T>(PhantomData<fn() -> T>);

impl<T: Serialize + DeserializeOwned> FileFormat for JsonList<T> {
    type Value = Listed<T>;

    fn empty() -> Listed<T> {
        Listed {
            items: Vec::new(),
            unread: Vec::new(),
        }
    }

    fn decode(bytes: &[u8]) -> Result<Listed<T>, String> {
        let raw: Vec<Value> = Json::decode(bytes)?;
        let mut listed = Self::empty();
        for value in raw {
            match serde_json::from_value(value.clone()) {
                Ok(item) => listed.items.push(item),
                Err(_) => listed.unread.push(value),
            }
        }
        Ok(listed)
    }

    fn encode(value: &Listed<T>) -> Result<Vec<u8>, serde_json::Error> {
        let mut all: Vec<Value> = value
            .items
            .iter()
            .map(serde_json::to_value)
            .collect::<Result<_, _>>()?;
        all.extend(value.unread.iter().cloned());
        serde_json::to_vec_pretty(&all)
    }

    fn unread(value: &Listed<T>) -> usize {
        value.unread.len()
    }
}

/// The entries of a keyed file: those read, and those kept as they were.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyed<T> {
    items: BTreeMap<String, T>,
    unread: BTreeMap<String, Value>,
}

impl<T> Keyed<T> {
    /// The entries this process could not read, by key, kept for the next save (unless an
    /// entry under the same key replaces one).
    pub fn unread(&self) -> &BTreeMap<String, Value> {
        &self.unread
    }
}

impl<T> Deref for Keyed<T> {
    type Target = BTreeMap<String, T>;
    fn deref(&self) -> &BTreeMap<String, T> {
        &self.items
    }
}

impl<T> DerefMut for Keyed<T> {
    fn deref_mut(&mut self) -> &mut BTreeMap<String, T> {
        &mut self.items
    }
}

/// A JSON object of entries by key, read one by one as [`JsonList`] reads its entries.
pub struct JsonMap<T>(PhantomData<fn() -> T>);

impl<T: Serialize + DeserializeOwned> FileFormat for JsonMap<T> {
    type Value = Keyed<T>;

    fn empty() -> Keyed<T> {
        Keyed {
            items: BTreeMap::new(),
            unread: BTreeMap::new(),
        }
    }

    fn decode(bytes: &[u8]) -> Result<Keyed<T>, String> {
        let raw: BTreeMap<String, Value> = Json::decode(bytes)?;
        let mut keyed = Self::empty();
        for (key, value) in raw {
            match serde_json::from_value(value.clone()) {
                Ok(item) => {
                    keyed.items.insert(key, item);
                }
                Err(_) => {
                    keyed.unread.insert(key, value);
                }
            }
        }
        Ok(keyed)
    }

    fn encode(value: &Keyed<T>) -> Result<Vec<u8>, serde_json::Error> {
        let mut all: BTreeMap<&str, Value> = value
            .unread
            .iter()
            .map(|(key, raw)| (key.as_str(), raw.clone()))
            .collect();
        for (key, item) in &value.items {
            all.insert(key, serde_json::to_value(item)?);
        }
        serde_json::to_vec_pretty(&all)
    }

    fn unread(value: &Keyed<T>) -> usize {
        value.unread.len()
    }
}
