//! Virtual MFA devices: created with a TOTP seed, enabled for a user, listed, deactivated,
//! deleted. The codes given to `EnableMFADevice` and `ResyncMFADevice` are not checked
//! (Stratus signs nobody in), and no QR code image is drawn (`QRCodePNG` is left out; the
//! seed is what authenticator apps take).

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;
use stratus_storage::Read;

use crate::error::IamError;
use crate::ids::mfa_seed;
use crate::listing::page;
use crate::ops::users::caller_user;
use crate::records::{date, key, wire_tags, MfaDeviceRecord, Scope, UserRecord};
use crate::service::{now, scope, IamService};
use crate::store::{all, load, MFA_DEVICES, USERS};
use crate::tagging::{merged, tag_page, without};

fn no_such_device(serial: &str) -> IamError {
    IamError::NoSuchEntity(format!("VirtualMFADevice with serial number {serial} doesn't exist."))
}

fn load_device(r: &(impl Read + ?Sized), serial: &str) -> Result<MfaDeviceRecord, IamError> {
    MFA_DEVICES.get(r, serial)?.ok_or_else(|| no_such_device(serial))
}

/// The device as `ListVirtualMFADevices` shows it: with its user when assigned, no seed.
fn wire(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    serial: &str,
    device: &MfaDeviceRecord,
) -> Result<VirtualMFADevice, IamError> {
    let (user, enable_date) = match &device.assigned {
        Some((user_key, at)) => (USERS.get(r, user_key)?.map(|u| u.listed(scope)), Some(date(*at))),
        None => (None, None),
    };
    Ok(VirtualMFADevice {
        serial_number: serial.to_owned(),
        base32_string_seed: None,
        qr_code_png: None,
        user,
        enable_date,
        tags: wire_tags(&device.tags),
    })
}

pub(crate) async fn create_virtual_mfa_device(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateVirtualMFADeviceRequest,
) -> Result<CreateVirtualMFADeviceResponse, IamError> {
    let path = input.path.unwrap_or_else(|| "/".into());
    let serial = scope(ctx).arn("mfa", &path, &input.virtual_mfa_device_name);
    let record = MfaDeviceRecord {
        seed: mfa_seed(),
        tags: merged(&Vec::new(), input.tags.unwrap_or_default())?,
        assigned: None,
    };
    let (stored_serial, stored) = (serial.clone(), record.clone());
    iam.write(&ctx.account_id, move |tx| {
        if MFA_DEVICES.get(tx, &stored_serial)?.is_some() {
            return Err(IamError::EntityAlreadyExists(
                "MFADevice entity at the same path and name already exists.".into(),
            ));
        }
        MFA_DEVICES.put(tx, stored_serial.as_bytes(), &stored)?;
        Ok(())
    })
    .await?;
    Ok(CreateVirtualMFADeviceResponse {
        virtual_mfa_device: VirtualMFADevice {
            serial_number: serial,
            base32_string_seed: Some(record.seed.into_bytes()),
            qr_code_png: None,
            user: None,
            enable_date: None,
            tags: wire_tags(&record.tags),
        },
    })
}

pub(crate) async fn delete_virtual_mfa_device(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteVirtualMFADeviceRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let device = load_device(tx, &input.serial_number)?;
        if device.assigned.is_some() {
            return Err(IamError::DeleteConflict("MFA Device is still in use.".into()));
        }
        MFA_DEVICES.delete(tx, input.serial_number.as_bytes());
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn list_virtual_mfa_devices(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListVirtualMFADevicesRequest,
) -> Result<ListVirtualMFADevicesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListVirtualMFADevices");
    let scope = scope(ctx);
    let store = iam.reader(&ctx.account_id)?;
    let devices = all(&store, MFA_DEVICES)?
        .into_iter()
        .filter(|(_, d)| match input.assignment_status {
            Some(AssignmentStatusType::Assigned) => d.assigned.is_some(),
            Some(AssignmentStatusType::Unassigned) => d.assigned.is_none(),
            _ => true,
        })
        .map(|(serial, d)| (serial.clone(), (serial, d)))
        .collect();
    let page = page(LISTING, devices, input.marker.as_deref(), input.max_items)?;
    Ok(ListVirtualMFADevicesResponse {
        virtual_mfa_devices: page
            .items
            .iter()
            .map(|(serial, d)| wire(&store, &scope, serial, d))
            .collect::<Result<_, _>>()?,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn enable_mfa_device(
    iam: &IamService,
    ctx: &RequestContext,
    input: EnableMFADeviceRequest,
) -> Result<Unit, IamError> {
    let at = now(ctx);
    iam.write(&ctx.account_id, move |tx| {
        let user: UserRecord = load(tx, &input.user_name)?;
        let mut device = load_device(tx, &input.serial_number)?;
        if device.assigned.is_some() {
            return Err(IamError::EntityAlreadyExists("MFA Device is already in use.".into()));
        }
        device.assigned = Some((key(&user.name), at));
        MFA_DEVICES.put(tx, input.serial_number.as_bytes(), &device)?;
        Ok(Unit {})
    })
    .await
}

/// The device `serial` enabled for `user`, or AWS's refusal.
fn enabled_for(r: &(impl Read + ?Sized), user: &UserRecord, serial: &str) -> Result<MfaDeviceRecord, IamError> {
    let device = load_device(r, serial)?;
    if device.assigned.as_ref().is_some_and(|(u, _)| *u == key(&user.name)) {
        Ok(device)
    } else {
        Err(IamError::NoSuchEntity(format!(
            "MFA Device with serial number {serial} is not enabled for user {}.",
            user.name
        )))
    }
}

pub(crate) async fn deactivate_mfa_device(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeactivateMFADeviceRequest,
) -> Result<Unit, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    iam.write(&ctx.account_id, move |tx| {
        let mut device = enabled_for(tx, &user, &input.serial_number)?;
        device.assigned = None;
        MFA_DEVICES.put(tx, input.serial_number.as_bytes(), &device)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn resync_mfa_device(
    iam: &IamService,
    ctx: &RequestContext,
    input: ResyncMFADeviceRequest,
) -> Result<Unit, IamError> {
    let store = iam.reader(&ctx.account_id)?;
    let user: UserRecord = load(&store, &input.user_name)?;
    enabled_for(&store, &user, &input.serial_number)?;
    Ok(Unit {})
}

pub(crate) async fn list_mfa_devices(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListMFADevicesRequest,
) -> Result<ListMFADevicesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListMFADevices");
    let user = caller_user(iam, ctx, input.user_name)?;
    let user_key = key(&user.name);
    let devices = all(&iam.reader(&ctx.account_id)?, MFA_DEVICES)?
        .into_iter()
        .filter_map(|(serial, d)| {
            let (_, at) = d.assigned.filter(|(u, _)| *u == user_key)?;
            Some((
                serial.clone(),
                MFADevice {
                    user_name: user.name.clone(),
                    serial_number: serial,
                    enable_date: date(at),
                },
            ))
        })
        .collect();
    let page = page(LISTING, devices, input.marker.as_deref(), input.max_items)?;
    Ok(ListMFADevicesResponse {
        mfa_devices: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn get_mfa_device(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetMFADeviceRequest,
) -> Result<GetMFADeviceResponse, IamError> {
    let store = iam.reader(&ctx.account_id)?;
    let device = load_device(&store, &input.serial_number)?;
    let user = match &device.assigned {
        Some((user_key, _)) => USERS.get(&store, user_key)?.map(|u| u.name),
        None => None,
    };
    Ok(GetMFADeviceResponse {
        user_name: user,
        serial_number: input.serial_number,
        enable_date: device.assigned.map(|(_, at)| date(at)),
        certifications: None,
    })
}

/// Applies `change` to device `serial`'s tags in one transaction.
async fn retag<F>(iam: &IamService, ctx: &RequestContext, serial: String, change: F) -> Result<Unit, IamError>
where
    F: FnOnce(&mut MfaDeviceRecord) -> Result<(), IamError> + Send + 'static,
{
    iam.write(&ctx.account_id, move |tx| {
        let mut device = load_device(tx, &serial)?;
        change(&mut device)?;
        MFA_DEVICES.put(tx, serial.as_bytes(), &device)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn tag_mfa_device(
    iam: &IamService,
    ctx: &RequestContext,
    input: TagMFADeviceRequest,
) -> Result<Unit, IamError> {
    retag(iam, ctx, input.serial_number, move |d| {
        d.tags = merged(&d.tags, input.tags)?;
        Ok(())
    })
    .await
}

pub(crate) async fn untag_mfa_device(
    iam: &IamService,
    ctx: &RequestContext,
    input: UntagMFADeviceRequest,
) -> Result<Unit, IamError> {
    retag(iam, ctx, input.serial_number, move |d| {
        d.tags = without(&d.tags, &input.tag_keys);
        Ok(())
    })
    .await
}

pub(crate) async fn list_mfa_device_tags(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListMFADeviceTagsRequest,
) -> Result<ListMFADeviceTagsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListMFADeviceTags");
    let device = load_device(&iam.reader(&ctx.account_id)?, &input.serial_number)?;
    let page = tag_page(LISTING, &device.tags, input.marker.as_deref(), input.max_items)?;
    Ok(ListMFADeviceTagsResponse {
        tags: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}
