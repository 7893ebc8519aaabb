//! What a cloud offers to choose from when an application is configured:
//! flavors, images, key pairs, availability zones, networks, security groups,
//! volumes and DNS zones. Front ends (the forms of a package's `ui.yaml`)
//! list these as choices; [`super::simulator::catalog`] is the simulator's.

/// A flavor (Nova).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flavor {
    /// Flavor id.
    pub id: String,
    /// Flavor name (`m1.small`).
    pub name: String,
    /// Virtual CPUs.
    pub vcpus: u32,
    /// Memory in MiB.
    pub ram_mb: u32,
    /// Root disk in GiB.
    pub disk_gb: u32,
}

/// An image (Glance) with the Murano metadata the dashboard filters on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Image id.
    pub id: String,
    /// Image name.
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
    /// Zone name.
    pub name: String,
    /// Whether the zone takes new servers.
    pub available: bool,
}

/// A subnet of a [`Network`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subnet {
    /// Subnet id.
    pub id: String,
    /// Subnet name.
    pub name: String,
    /// The subnet's CIDR.
    pub cidr: String,
}

/// A Neutron network the project may attach instances to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// Network id.
    pub id: String,
    /// Network name.
    pub name: String,
    /// Whether it is an external (provider) network.
    pub external: bool,
    /// Its subnets.
    pub subnets: Vec<Subnet>,
}

/// A volume or a volume snapshot (Cinder).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Volume {
    /// Volume or snapshot id.
    pub id: String,
    /// Volume or snapshot name.
    pub name: String,
    /// Whether this is a snapshot rather than a volume.
    pub snapshot: bool,
}

/// Everything a cloud offers to choose from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CloudCatalog {
    /// Server flavors.
    pub flavors: Vec<Flavor>,
    /// Images.
    pub images: Vec<Image>,
    /// Key pair names.
    pub keypairs: Vec<String>,
    /// Availability zones.
    pub zones: Vec<Zone>,
    /// Networks with their subnets.
    pub networks: Vec<Network>,
    /// Security group names.
    pub security_groups: Vec<String>,
    /// Volumes and volume snapshots.
    pub volumes: Vec<Volume>,
    /// DNS zone names.
    pub dns_zones: Vec<String>,
}
