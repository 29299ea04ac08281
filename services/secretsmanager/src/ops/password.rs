//! GetRandomPassword.

use stratus_core::RequestContext;
use stratus_gen_secrets_manager::*;

use crate::error::SmError;
use crate::password::{PasswordRules, DEFAULT_LENGTH};
use crate::service::SecretsService;

pub(crate) async fn get_random_password(
    _sm: &SecretsService,
    _ctx: &RequestContext,
    input: GetRandomPasswordRequest,
) -> Result<GetRandomPasswordResponse, SmError> {
    // The model bounds PasswordLength to 1–4,096, checked before this runs.
    let length = input.password_length.map_or(DEFAULT_LENGTH, |n| n as usize);
    let rules = PasswordRules {
        length,
        exclude_characters: input.exclude_characters.unwrap_or_default(),
        exclude_numbers: input.exclude_numbers.unwrap_or(false),
        exclude_punctuation: input.exclude_punctuation.unwrap_or(false),
        exclude_uppercase: input.exclude_uppercase.unwrap_or(false),
        exclude_lowercase: input.exclude_lowercase.unwrap_or(false),
        include_space: input.include_space.unwrap_or(false),
        require_each_included_type: input.require_each_included_type.unwrap_or(true),
    };
    Ok(GetRandomPasswordResponse {
        random_password: Some(rules.generate()?),
    })
}
