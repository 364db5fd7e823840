/// The SMS texts of every language, as data: one template a line, parsed once by ``SMSTemplates``.
///
/// A line is `LANGUAGE KIND TEXT`, the three fields separated by one space:
/// - `LANGUAGE` is a lower-case BCP 47 primary language subtag of 2 or 3 letters (`en`, `fr`), optionally followed
///   by `-` and a lower-case 4-letter script subtag (`zh-hant`);
/// - `KIND` is the raw value of an ``SMSKind`` (`phone_sign_in`, `mfa_enrollment`, `mfa_sign_in`);
/// - `TEXT` is the rest of the line: not empty, no space at its start or end, no control characters, `{code}`
///   exactly once, `{app}` at most once, and no other `{` or `}`.
///
/// A line starting with `#` is a comment; blank lines are ignored. Each (language, kind) appears once, and every
/// language has every kind; English is the fallback of every other language. Texts put the code first, so that
/// phones offer to fill it in, and stay within one SMS (160 GSM characters, or 70 UTF-16 units for the other
/// alphabets) with a 6-digit code and an app name of 10 characters.
enum SMSTemplateTable {
    /// The table, in the format above.
    static let text = """
        # English (the fallback: every kind must be here)
        en phone_sign_in {code} is your verification code for {app}.
        en mfa_enrollment {code} is your code to turn on 2-step verification for {app}.
        en mfa_sign_in {code} is your 2-step verification code for {app}.
        # German
        de phone_sign_in {code} ist Ihr Bestätigungscode für {app}.
        de mfa_enrollment {code} ist Ihr Code zum Einrichten der Bestätigung in zwei Schritten für {app}.
        de mfa_sign_in {code} ist Ihr Code für die Bestätigung in zwei Schritten bei {app}.
        # Spanish
        es phone_sign_in {code} es tu código de verificación de {app}.
        es mfa_enrollment {code} es tu código para activar la doble verificación de {app}.
        es mfa_sign_in {code} es tu código de doble verificación para {app}.
        # French
        fr phone_sign_in {code} est votre code de vérification pour {app}.
        fr mfa_enrollment {code} est votre code pour activer la validation en deux étapes de {app}.
        fr mfa_sign_in {code} est votre code de validation en deux étapes pour {app}.
        # Italian
        it phone_sign_in {code} è il tuo codice di verifica per {app}.
        it mfa_enrollment {code} è il tuo codice per attivare la verifica in due passaggi su {app}.
        it mfa_sign_in {code} è il tuo codice di verifica in due passaggi per {app}.
        # Japanese
        ja phone_sign_in {code} は {app} の確認コードです。
        ja mfa_enrollment {code} は {app} の2段階認証を設定するための確認コードです。
        ja mfa_sign_in {code} は {app} の2段階認証の確認コードです。
        # Portuguese
        pt phone_sign_in {code} é o seu código de verificação para {app}.
        pt mfa_enrollment {code} é o código de {app} para ativar a verificação em 2 etapas.
        pt mfa_sign_in {code} é o seu código de verificação em 2 etapas para {app}.
        # Russian
        ru phone_sign_in {code} — ваш код подтверждения для {app}.
        ru mfa_enrollment {code} — ваш код для включения двухэтапной проверки в {app}.
        ru mfa_sign_in {code} — ваш код двухэтапной проверки для {app}.
        # Chinese, Simplified script
        zh phone_sign_in {code} 是您的 {app} 验证码。
        zh mfa_enrollment {code} 是您开启 {app} 两步验证的验证码。
        zh mfa_sign_in {code} 是您登录 {app} 的两步验证码。
        # Chinese, Traditional script
        zh-hant phone_sign_in {code} 是您的 {app} 驗證碼。
        zh-hant mfa_enrollment {code} 是您啟用 {app} 兩步驟驗證的驗證碼。
        zh-hant mfa_sign_in {code} 是您登入 {app} 的兩步驟驗證碼。
        """
}
