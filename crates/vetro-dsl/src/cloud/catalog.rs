//! What a cloud offers to choose from when an application is configured:
//! flavors, images, key pairs, availability zones, networks, security groups,
//! volumes and DNS zones. Front ends (the forms of a package's `ui.yaml`)
//! list these as choices; [`super::simulator::catalog`] is the simulator's.

/// A flavor (Nova).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flavor {
    pub id: String,
    pub name: String,
    pub vcpus: u32,
    pub ram_mb: u32,
    pub disk_gb: u32,
}

/// An image (Glance) with the Murano metadata the dashboard filters on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub id: String,
    pub name: String,
    /// `active`, or another Glance status (offered but not selectable).
    pub status: String,
    /// `murano_image_info.type`, such as `linux` or `windows.2019`; images
    /// without Murano metadata are not offered to applications.
    pub murano_type: Option<String>,
    /// `murano_image_info.title`, shown instead of the name.
    pub title: Option<String>,
}

/// An availability zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    pub name: String,
    pub available: bool,
}

/// A subnet of a [`Network`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subnet {
    pub id: String,
    pub name: String,
    pub cidr: String,
}

/// A Neutron network the project may attach instances to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    pub id: String,
    pub name: String,
    pub external: bool,
    pub subnets: Vec<Subnet>,
}

/// A volume or a volume snapshot (Cinder).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Volume {
    pub id: String,
    pub name: String,
    pub snapshot: bool,
}

/// Everything a cloud offers to choose from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CloudCatalog {
    pub flavors: Vec<Flavor>,
    pub images: Vec<Image>,
    pub keypairs: Vec<String>,
    pub zones: Vec<Zone>,
    pub networks: Vec<Network>,
    pub security_groups: Vec<String>,
    pub volumes: Vec<Volume>,
    pub dns_zones: Vec<String>,
}
