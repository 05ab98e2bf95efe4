//! SetForwardingPipelineConfig / GetForwardingPipelineConfig: turning a
//! (P4Info, BMv2 JSON, cookie) triple into a verified pipeline.

use p4engine::Program;

use crate::error::{RtError, RtResult};
use crate::proto::p4::config::v1 as cfg;
use crate::proto::p4::v1 as p4v1;
use crate::schema::Schema;

/// A verified forwarding pipeline: what the switch runs and how to address it.
#[derive(Debug)]
pub struct Pipeline {
    pub p4info: cfg::P4Info,
    pub device_config: Vec<u8>,
    pub cookie: Option<u64>,
    pub schema: Schema,
    pub program: Program,
}

/// Loads the device config (BMv2 JSON bytes) and checks the P4Info against it.
pub fn verify(config: &p4v1::ForwardingPipelineConfig) -> RtResult<Pipeline> {
    let p4info = config
        .p4info
        .clone()
        .ok_or_else(|| RtError::invalid("ForwardingPipelineConfig without p4info"))?;
    if config.p4_device_config.is_empty() {
        return Err(RtError::invalid("ForwardingPipelineConfig without p4_device_config (BMv2 JSON)"));
    }
    let json = std::str::from_utf8(&config.p4_device_config)
        .map_err(|e| RtError::invalid(format!("p4_device_config is not BMv2 JSON text: {e}")))?;
    let program = p4engine::load_program(json)
        .map_err(|e| RtError::invalid(format!("p4_device_config does not load: {e}")))?;
    let schema = Schema::build(&p4info, program.info())?;
    Ok(Pipeline {
        p4info,
        device_config: config.p4_device_config.clone(),
        cookie: config.cookie.map(|c| c.cookie),
        schema,
        program,
    })
}

/// The GetForwardingPipelineConfig answer for `response_type`.
pub fn get_response(p: &Pipeline, response_type: i32) -> RtResult<p4v1::ForwardingPipelineConfig> {
    use p4v1::get_forwarding_pipeline_config_request::ResponseType as R;
    let cookie = p.cookie.map(|c| p4v1::forwarding_pipeline_config::Cookie { cookie: c });
    let rt = R::try_from(response_type).map_err(|_| RtError::invalid(format!("unknown response_type {response_type}")))?;
    let (p4info, dev) = match rt {
        R::All => (Some(p.p4info.clone()), p.device_config.clone()),
        R::CookieOnly => (None, Vec::new()),
        R::P4infoAndCookie => (Some(p.p4info.clone()), Vec::new()),
        R::DeviceConfigAndCookie => (None, p.device_config.clone()),
    };
    Ok(p4v1::ForwardingPipelineConfig { p4info, p4_device_config: dev, cookie })
}
