//! Which Vulkan driver runs shaders (`--driver`, `SHADERSTEP_DRIVER`, `[driver]` in
//! shaderstep.toml), and what each device found can show.
//!
//! A driver is chosen by its ICD file (then the worker process loads that driver alone: the
//! loader's `VK_DRIVER_FILES`, with the library's own directory first on `LD_LIBRARY_PATH` so
//! that libraries fetched beside it, as `scripts/lavapipe.sh` does, are found), or by a name the
//! device's name, driver name or driver info contains (`llvmpipe`, `radv`, `Mesa 25`). The choice
//! is applied where the worker starts: the environment only reaches the child process.

use std::path::{Path, PathBuf};

use ash::vk;

use super::{Gpu, INSTALL};

/// The variable that chooses the driver when `--driver` is not given.
pub const DRIVER_VAR: &str = "SHADERSTEP_DRIVER";

/// Which driver runs shaders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Driver {
    /// lavapipe when the system has it, else the first device.
    #[default]
    System,
    /// An ICD manifest: only that driver is loaded.
    Icd(PathBuf),
    /// The device whose name, driver name or driver info contains this (case-insensitively).
    Named(String),
}

impl Driver {
    /// `ICD.json` (a path: it ends in `.json` or names a file) or a device `NAME`.
    pub fn parse(text: &str) -> Result<Driver, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("--driver: empty (give an ICD file or a device name)".into());
        }
        let path = Path::new(text);
        if text.ends_with(".json") || path.is_file() {
            if !path.is_file() {
                return Err(format!("{text}: no such ICD file"));
            }
            let icd = std::fs::read_to_string(path)
                .map_err(|e| format!("{text}: cannot read the ICD file: {e}"))?;
            if library_path(&icd).is_none() {
                return Err(format!(
                    "{text}: not an ICD file (no \"library_path\" in it)"
                ));
            }
            return Ok(Driver::Icd(path.to_path_buf()));
        }
        Ok(Driver::Named(text.to_string()))
    }

    /// The driver asked for: the command line's, else `SHADERSTEP_DRIVER`, else the
    /// configuration's, else the system's.
    pub fn resolve(flag: Option<&str>, config: Option<&str>) -> Result<Driver, String> {
        let env = std::env::var(DRIVER_VAR)
            .ok()
            .filter(|v| !v.trim().is_empty());
        match flag.or(env.as_deref()).or(config) {
            Some(text) => Driver::parse(text),
            None => Ok(Driver::System),
        }
    }

    /// The device name to look for, once the driver is loaded.
    pub(crate) fn name(&self) -> &str {
        match self {
            Driver::Named(n) => n,
            _ => "",
        }
    }

    /// Whether a non-CPU device may be taken: a driver named or given by its ICD file is what
    /// the user asked for, whatever it is.
    pub(crate) fn any_device(&self) -> bool {
        !matches!(self, Driver::System)
    }

    /// Sets what makes the loader of a process started by `command` load this driver.
    pub(crate) fn apply(&self, command: &mut std::process::Command) {
        let Driver::Icd(icd) = self else {
            return;
        };
        let icd = std::path::absolute(icd).unwrap_or_else(|_| icd.clone());
        command.env("VK_DRIVER_FILES", &icd);
        // Loaders older than 1.3.234 know only the old name.
        command.env("VK_ICD_FILENAMES", &icd);
        let library = std::fs::read_to_string(&icd)
            .ok()
            .and_then(|t| library_path(&t))
            .map(PathBuf::from);
        if let Some(dir) = library
            .filter(|l| l.is_absolute())
            .and_then(|l| l.parent().map(Path::to_path_buf))
        {
            let mut paths = vec![dir];
            if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
                paths.extend(std::env::split_paths(&old));
            }
            if let Ok(joined) = std::env::join_paths(paths) {
                command.env("LD_LIBRARY_PATH", joined);
            }
        }
    }
}

impl std::fmt::Display for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Driver::System => f.write_str("the system's driver"),
            Driver::Icd(p) => write!(f, "{}", p.display()),
            Driver::Named(n) => write!(f, "the device named like '{n}'"),
        }
    }
}

/// The `"library_path"` of an ICD manifest (JSON; the value is a plain path).
pub fn library_path(icd: &str) -> Option<String> {
    let at = icd.find("\"library_path\"")? + "\"library_path\"".len();
    let rest = icd[at..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => value.push(match chars.next()? {
                'n' => '\n',
                't' => '\t',
                other => other,
            }),
            c => value.push(c),
        }
    }
    None
}

/// A Vulkan device as `shaderstep drivers` lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    /// `cpu`, `discrete`, `integrated`, `virtual` or `other`.
    pub kind: String,
    pub driver_name: String,
    /// The driver's version as it says it (`Mesa 25.0.7 (LLVM 15.0.6)`).
    pub driver_info: String,
    /// The Vulkan version it supports (`1.4.305`).
    pub api: String,
    pub subgroup_size: u32,
    /// `VK_KHR_pipeline_executable_properties`: the driver's statistics and representations.
    pub executable_properties: bool,
    /// lavapipe from Mesa 25 on: `GALLIVM_DEBUG` prints its NIR, LLVM IR and assembly.
    pub gallivm_debug: bool,
    /// Ray queries (acceleration structures and `VK_KHR_ray_query`).
    pub ray_query: bool,
}

impl DeviceInfo {
    /// Whether `name` (case-insensitively) is in its name, driver name or driver info.
    pub fn matches(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        [&self.name, &self.driver_name, &self.driver_info]
            .iter()
            .any(|s| s.to_lowercase().contains(&name))
    }

    /// What it can show of the code it compiles, in words.
    pub fn shows(&self) -> String {
        match (self.gallivm_debug, self.executable_properties) {
            (true, _) => "NIR, LLVM IR and x86 assembly (GALLIVM_DEBUG)".into(),
            (false, true) => {
                "its statistics through executable properties, which shaderstep does not read yet"
                    .into()
            }
            (false, false) => {
                "nothing of its code (no executable properties, no GALLIVM_DEBUG)".into()
            }
        }
    }
}

/// The Mesa major version in a driver info (`Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)`).
pub fn mesa_major(driver_info: &str) -> Option<u32> {
    let rest = &driver_info[driver_info.find("Mesa ")? + 5..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

fn kind_name(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::CPU => "cpu",
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual",
        _ => "other",
    }
}

/// The names of the device extensions a physical device offers.
///
/// # Safety
/// `physical` comes from `instance`, which is alive.
pub(super) unsafe fn device_extensions(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Vec<String> {
    // SAFETY: the caller's.
    unsafe {
        instance
            .enumerate_device_extension_properties(physical)
            .unwrap_or_default()
            .iter()
            .filter_map(|x| x.extension_name_as_c_str().ok())
            .map(|c| c.to_string_lossy().into_owned())
            .collect()
    }
}

/// The Vulkan loader and an instance of it (Vulkan 1.2), or why not, saying how to install one.
pub(super) fn instance() -> Result<(ash::Entry, ash::Instance), String> {
    // SAFETY: the entry is returned with the instance made of it, so it outlives it; the
    // create-info borrows a local alive across the call.
    unsafe {
        let entry = ash::Entry::load().map_err(|e| format!("no Vulkan loader ({e}): {INSTALL}"))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .map_err(|e| format!("cannot create a Vulkan instance ({e}): {INSTALL}"))?;
        Ok((entry, instance))
    }
}

/// What a physical device is, from its properties and extensions.
///
/// # Safety
/// `physical` comes from `instance`, which is alive.
pub(super) unsafe fn describe(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> DeviceInfo {
    // SAFETY: the caller's; the chained structs are locals alive across the call.
    unsafe {
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut driver)
            .push_next(&mut subgroup);
        instance.get_physical_device_properties2(physical, &mut props);
        let p = props.properties;
        let text = |c: Result<&std::ffi::CStr, _>| {
            c.map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let name = text(p.device_name_as_c_str());
        let driver_name = text(driver.driver_name_as_c_str());
        let driver_info = text(driver.driver_info_as_c_str());
        let extensions = device_extensions(instance, physical);
        let has = |e: &str| extensions.iter().any(|x| x == e);
        let lavapipe = driver.driver_id == vk::DriverId::MESA_LLVMPIPE;
        DeviceInfo {
            kind: kind_name(p.device_type).into(),
            api: format!(
                "{}.{}.{}",
                vk::api_version_major(p.api_version),
                vk::api_version_minor(p.api_version),
                vk::api_version_patch(p.api_version)
            ),
            subgroup_size: subgroup.subgroup_size,
            executable_properties: has("VK_KHR_pipeline_executable_properties"),
            gallivm_debug: lavapipe && mesa_major(&driver_info).is_some_and(|m| m >= 25),
            ray_query: has("VK_KHR_ray_query") && has("VK_KHR_acceleration_structure"),
            name,
            driver_name,
            driver_info,
        }
    }
}

impl Gpu {
    /// Every device the Vulkan loader of this process finds, described (no device is made).
    pub fn devices() -> Result<Vec<DeviceInfo>, String> {
        // SAFETY: the entry outlives the instance, which is destroyed once, after every use of
        // the physical devices it gave.
        let (_entry, instance) = instance()?;
        unsafe {
            let found = instance
                .enumerate_physical_devices()
                .map(|ds| ds.iter().map(|&d| describe(&instance, d)).collect())
                .map_err(|e| format!("cannot list the Vulkan devices: {e}"));
            instance.destroy_instance(None);
            found
        }
    }
}

/// The lavapipe builds `scripts/lavapipe.sh` fetched: their ICD files, newest first.
pub fn fetched_lavapipes() -> Vec<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    let Some(dir) = cache.map(|c| c.join("shaderstep")) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("lavapipe-"))
        .map(|e| e.path().join("lvp_icd.json"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.reverse();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_an_icd_files_library() {
        let icd = "{\n \"file_format_version\": \"1.0.0\",\n \"ICD\": {\"library_path\" : \"/opt/lvp/libvulkan_lvp.so\", \"api_version\": \"1.4.305\"}}";
        assert_eq!(
            library_path(icd).as_deref(),
            Some("/opt/lvp/libvulkan_lvp.so")
        );
        assert_eq!(library_path("{\"ICD\": {}}"), None);
    }

    #[test]
    fn mesa_versions_are_read_from_the_driver_info() {
        assert_eq!(mesa_major("Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)"), Some(25));
        assert_eq!(mesa_major("Mesa 22.3.6 (LLVM 15.0.6)"), Some(22));
        assert_eq!(mesa_major("NVIDIA 550.1"), None);
    }

    #[test]
    fn names_and_files_are_told_apart() {
        assert_eq!(
            Driver::parse("llvmpipe").unwrap(),
            Driver::Named("llvmpipe".into())
        );
        let e = Driver::parse("/nowhere/lvp_icd.json").unwrap_err();
        assert!(e.contains("no such ICD file"), "{e}");
        assert!(Driver::parse(" ").is_err());
        let d = DeviceInfo {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            driver_info: "Mesa 25.0.7".into(),
            ..Default::default()
        };
        assert!(d.matches("LLVMPIPE") && d.matches("mesa 25") && !d.matches("radv"));
    }
}
