//! Why the driver refused a pipeline, said better than its error code: lavapipe answers a
//! capability it lacks with "an unknown error".

use super::Gpu;
use crate::ir::spirv::read::{instruction_words, is_whole};
use ash::vk;

impl Gpu {
    /// Why the driver refused to make a pipeline of `modules`, said better than its error code
    /// ("an unknown error", as lavapipe says for a capability it lacks): the SPIR-V extensions
    /// the shaders use whose Vulkan extension the driver does not offer, else what they declare.
    pub(super) fn refusal(&self, what: &str, e: vk::Result, modules: &[&[u32]]) -> String {
        let (mut extensions, mut capabilities) = (Vec::new(), Vec::new());
        for words in modules {
            let (e, c) = declared(words);
            extensions.extend(e);
            capabilities.extend(c);
        }
        extensions.sort();
        extensions.dedup();
        capabilities.sort();
        capabilities.dedup();
        let missing: Vec<String> = extensions
            .iter()
            .filter_map(|spv| {
                let vk = vulkan_extension(spv)?;
                (!self.extensions.contains(&vk)).then(|| format!("{spv} ({vk})"))
            })
            .collect();
        if !missing.is_empty() {
            return format!(
                "{} refuses the {what} ({e}): the shader uses {}, which {} does not offer",
                self.name,
                missing.join(", "),
                self.name
            );
        }
        let plain = |c: &String| c == "Shader" || c == "Matrix";
        let capabilities: Vec<&String> = capabilities.iter().filter(|c| !plain(c)).collect();
        let mut declared = Vec::new();
        if !capabilities.is_empty() {
            let names: Vec<&str> = capabilities.iter().map(|c| c.as_str()).collect();
            declared.push(format!("capabilities {}", names.join(", ")));
        }
        if !extensions.is_empty() {
            declared.push(format!("extensions {}", extensions.join(", ")));
        }
        if declared.is_empty() {
            format!("{} refuses the {what} ({e})", self.name)
        } else {
            format!(
                "{} refuses the {what} ({e}); the shader declares {}: one of them may be what it lacks",
                self.name,
                declared.join(" and ")
            )
        }
    }
}

/// SPIR-V extensions that lavapipe answers with an abort rather than an error when it does not
/// offer their Vulkan extension (seen on Mesa 22.3 and 25.0), with the stage where they do
/// (`None`: any): an intrinsic its back end lacks. Others it refuses, or runs all the same
/// without listing the extension (fragment shader interlock, AMD's ballot), so they are not
/// checked before.
const ABORTS_WITHOUT: &[(&str, Option<spirv::ExecutionModel>)] = &[
    ("SPV_KHR_fragment_shader_barycentric", None),
    ("SPV_NV_fragment_shader_barycentric", None),
    ("SPV_EXT_fragment_fully_covered", None),
    (
        "SPV_KHR_fragment_shading_rate",
        Some(spirv::ExecutionModel::Fragment),
    ),
    ("SPV_KHR_ray_query", None),
];

impl Gpu {
    /// Refuses, before any pipeline is made, shaders that use a SPIR-V extension the driver
    /// would abort on without its Vulkan extension (`ABORTS_WITHOUT`), naming what it lacks.
    pub(super) fn offers_what_is_used(&self, modules: &[&[u32]]) -> Result<(), String> {
        let mut missing: Vec<String> = Vec::new();
        for words in modules {
            let models = entry_models(words);
            for spv in declared(words).0 {
                let Some((_, stage)) = ABORTS_WITHOUT.iter().find(|(x, _)| *x == spv) else {
                    continue;
                };
                if stage.is_some_and(|m| !models.contains(&m)) {
                    continue;
                }
                let Some(vk) = vulkan_extension(&spv) else {
                    continue;
                };
                let said = format!("{vk} (the shader uses {spv})");
                if !self.extensions.contains(&vk) && !missing.contains(&said) {
                    missing.push(said);
                }
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{} lacks {}: not run",
            self.name,
            missing.join(", ")
        ))
    }
}

/// The execution models of a module's entry points, read off its words.
fn entry_models(words: &[u32]) -> Vec<spirv::ExecutionModel> {
    let mut models = Vec::new();
    for i in instruction_words(words).take_while(|i| is_whole(i)) {
        match spirv::Op::from_u32(i[0] & 0xffff) {
            Some(spirv::Op::EntryPoint) => {
                if let Some(m) = i.get(1).and_then(|&m| spirv::ExecutionModel::from_u32(m)) {
                    models.push(m);
                }
            }
            Some(spirv::Op::Function) => break,
            _ => {}
        }
    }
    models
}

/// The `OpExtension` names and `OpCapability` names a module declares, read off its words.
fn declared(words: &[u32]) -> (Vec<String>, Vec<String>) {
    let (mut extensions, mut capabilities) = (Vec::new(), Vec::new());
    for i in instruction_words(words).take_while(|i| is_whole(i)) {
        let operands = &i[1..];
        match spirv::Op::from_u32(i[0] & 0xffff) {
            Some(spirv::Op::Extension) => {
                let bytes: Vec<u8> = operands.iter().flat_map(|w| w.to_le_bytes()).collect();
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                extensions.push(String::from_utf8_lossy(&bytes[..end]).into_owned());
            }
            Some(spirv::Op::Capability) => {
                if let Some(c) = operands
                    .first()
                    .and_then(|&c| spirv::Capability::from_u32(c))
                {
                    capabilities.push(format!("{c:?}"));
                }
            }
            // Capabilities and extensions come first in a module.
            Some(spirv::Op::ExtInstImport) => {}
            _ => break,
        }
    }
    (extensions, capabilities)
}

/// The Vulkan device extension that lets a shader use SPIR-V extension `spv`: mostly the same
/// name with `VK_` for `SPV_`, with the exceptions Vulkan's registry lists. None for the ones no
/// device extension is needed for.
fn vulkan_extension(spv: &str) -> Option<String> {
    const RENAMED: &[(&str, &str)] = &[
        (
            "SPV_KHR_non_semantic_info",
            "VK_KHR_shader_non_semantic_info",
        ),
        (
            "SPV_KHR_physical_storage_buffer",
            "VK_KHR_buffer_device_address",
        ),
        ("SPV_KHR_float_controls", "VK_KHR_shader_float_controls"),
        (
            "SPV_KHR_terminate_invocation",
            "VK_KHR_shader_terminate_invocation",
        ),
        (
            "SPV_KHR_subgroup_uniform_control_flow",
            "VK_KHR_shader_subgroup_uniform_control_flow",
        ),
        (
            "SPV_KHR_integer_dot_product",
            "VK_KHR_shader_integer_dot_product",
        ),
        ("SPV_KHR_expect_assume", "VK_KHR_shader_expect_assume"),
        (
            "SPV_KHR_maximal_reconvergence",
            "VK_KHR_shader_maximal_reconvergence",
        ),
        ("SPV_KHR_quad_control", "VK_KHR_shader_quad_control"),
        ("SPV_KHR_subgroup_rotate", "VK_KHR_shader_subgroup_rotate"),
        (
            "SPV_EXT_shader_image_int64",
            "VK_EXT_shader_image_atomic_int64",
        ),
        (
            "SPV_EXT_physical_storage_buffer",
            "VK_EXT_buffer_device_address",
        ),
        (
            "SPV_EXT_demote_to_helper_invocation",
            "VK_EXT_shader_demote_to_helper_invocation",
        ),
        (
            "SPV_EXT_shader_atomic_float_add",
            "VK_EXT_shader_atomic_float",
        ),
        (
            "SPV_EXT_shader_atomic_float_min_max",
            "VK_EXT_shader_atomic_float2",
        ),
        (
            "SPV_EXT_shader_atomic_float16_add",
            "VK_EXT_shader_atomic_float2",
        ),
        (
            "SPV_EXT_shader_viewport_index_layer",
            "VK_EXT_shader_viewport_index_layer",
        ),
        (
            "SPV_GOOGLE_decorate_string",
            "VK_GOOGLE_hlsl_functionality1",
        ),
        (
            "SPV_GOOGLE_hlsl_functionality1",
            "VK_GOOGLE_hlsl_functionality1",
        ),
        ("SPV_GOOGLE_user_type", "VK_GOOGLE_user_type"),
        (
            "SPV_EXT_fragment_fully_covered",
            "VK_EXT_conservative_rasterization",
        ),
    ];
    if let Some((_, vk)) = RENAMED.iter().find(|(s, _)| *s == spv) {
        return Some(vk.to_string());
    }
    // Those whose Vulkan extension has the same name (`SPV_X` is `VK_X`).
    const SAME: &[&str] = &[
        "SPV_KHR_16bit_storage",
        "SPV_KHR_8bit_storage",
        "SPV_KHR_storage_buffer_storage_class",
        "SPV_KHR_variable_pointers",
        "SPV_KHR_shader_draw_parameters",
        "SPV_KHR_vulkan_memory_model",
        "SPV_KHR_multiview",
        "SPV_KHR_device_group",
        "SPV_KHR_shader_clock",
        "SPV_KHR_ray_query",
        "SPV_KHR_ray_tracing",
        "SPV_KHR_cooperative_matrix",
        "SPV_KHR_fragment_shading_rate",
        "SPV_KHR_workgroup_memory_explicit_layout",
        "SPV_KHR_fragment_shader_barycentric",
        "SPV_EXT_descriptor_indexing",
        "SPV_EXT_fragment_shader_interlock",
        "SPV_EXT_shader_stencil_export",
        "SPV_EXT_mesh_shader",
        "SPV_EXT_fragment_invocation_density",
        "SPV_NV_shader_subgroup_partitioned",
        "SPV_NV_cooperative_matrix",
        "SPV_NV_mesh_shader",
        "SPV_NV_ray_tracing",
        "SPV_NV_shader_sm_builtins",
        "SPV_NV_fragment_shader_barycentric",
        "SPV_NV_compute_shader_derivatives",
        "SPV_AMD_shader_ballot",
        "SPV_AMD_shader_explicit_vertex_parameter",
        "SPV_AMD_gcn_shader",
        "SPV_AMD_shader_trinary_minmax",
        "SPV_AMD_gpu_shader_half_float",
        "SPV_AMD_gpu_shader_int16",
        "SPV_AMD_shader_fragment_mask",
        "SPV_AMD_shader_image_load_store_lod",
    ];
    SAME.contains(&spv).then(|| spv.replacen("SPV_", "VK_", 1))
}
