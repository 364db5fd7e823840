/// The translations into `ru` of the login pages' and mails' texts (``TextCatalogue``): an English line, then
/// its translation after `= `. Keep every `{placeholder}` of the English line; `\n` is a line break.
enum CatalogueRU {
    static let text = #"""
        a moment
        = немного

        1 second
        = 1 с

        {count} seconds
        = {count} с

        1 minute
        = 1 мин.

        {count} minutes
        = {count} мин.

        1 hour
        = 1 ч

        {count} hours
        = {count} ч

        Sign in
        = Вход

        {client} asks you to sign in with your {realm} account.
        = {client} просит войти с учётной записью {realm}.

        E-mail address
        = Адрес электронной почты

        Password
        = Пароль

        Forgot your password?
        = Забыли пароль?

        Reset your password
        = Сброс пароля

        Enter the e-mail address of your account. We will send it a link to choose a new password.
        = Введите адрес электронной почты вашей учётной записи. Мы отправим на него ссылку для выбора нового пароля.

        Send the link
        = Отправить ссылку

        Check your e-mail
        = Проверьте почту

        If {email} belongs to an account, we have sent it a link to choose a new password. The link works once, for one hour.
        = Если адрес {email} принадлежит учётной записи, мы отправили на него ссылку для выбора нового пароля. Ссылка действует один раз в течение часа.

        Back to sign-in
        = Вернуться ко входу

        Confirm it's you
        = Подтвердите, что это вы

        Choose how to confirm it's you
        = Выберите способ подтверждения

        Continue
        = Продолжить

        Enter your code
        = Введите код

        Enter your verification code.
        = Введите код подтверждения.

        Use another method
        = Другой способ

        Set up a second factor
        = Настройка второго фактора

        Your account must be protected with a second factor. Set one up to continue.
        = Ваша учётная запись должна быть защищена вторым фактором. Настройте его, чтобы продолжить.

        No second factor can be set up here. Contact your administrator.
        = Здесь нельзя настроить второй фактор. Обратитесь к администратору.

        QR code to scan
        = QR-код для сканирования

        Or type in this key:
        = Или введите этот ключ:

        Set up your second factor
        = Настройте второй фактор

        Verification code
        = Код подтверждения

        Verify
        = Подтвердить

        Send a new code
        = Отправить новый код

        Second factor
        = Второй фактор

        Choose a new password
        = Выберите новый пароль

        New password
        = Новый пароль

        8 characters or more.
        = Не менее 8 символов.

        Change my password
        = Сменить пароль

        Password changed
        = Пароль изменён

        The password of {email} has been changed, and every device signed in to the account was signed out. Return to the app and sign in with your new password.
        = Пароль {email} изменён, и все устройства, где был выполнен вход в эту учётную запись, вышли из неё. Вернитесь в приложение и войдите с новым паролем.

        Enter a new password.
        = Введите новый пароль.

        Choose a password of 8 to 4096 characters.
        = Выберите пароль длиной от 8 до 4096 символов.

        Link expired
        = Срок действия ссылки истёк

        This link has expired. Ask for a new one.
        = Срок действия этой ссылки истёк. Запросите новую.

        Link not valid
        = Недействительная ссылка

        This link is not valid or has already been used. Ask for a new one.
        = Эта ссылка недействительна или уже использована. Запросите новую.

        This password-reset link is incomplete.
        = Эта ссылка для сброса пароля неполная.

        The reset code is missing.
        = Отсутствует код сброса.

        This form was not sent from this page. Open the link of the mail again.
        = Эта форма отправлена не с этой страницы. Откройте ссылку из письма ещё раз.

        Enter your e-mail address.
        = Введите адрес электронной почты.

        Enter a valid e-mail address.
        = Введите действительный адрес электронной почты.

        Enter your password.
        = Введите пароль.

        Enter the code.
        = Введите код.

        Enter your {label}.
        = Заполните поле «{label}».

        Choose a method.
        = Выберите способ.

        Choose a method first.
        = Сначала выберите способ.

        Choose one of the methods.
        = Выберите один из способов.

        No code was sent yet. Send a new code.
        = Код ещё не отправлен. Отправьте новый код.

        This page could not check your browser. Allow its script to run, then try again.
        = Эта страница не смогла проверить ваш браузер. Разрешите выполнение её скрипта и попробуйте снова.

        The e-mail address or the password is not correct.
        = Неверный адрес электронной почты или пароль.

        Too many attempts. Try again in {wait}.
        = Слишком много попыток. Повторите через {wait}.

        Too many codes were sent. Try again in {wait}.
        = Отправлено слишком много кодов. Повторите через {wait}.

        The code is not correct.
        = Неверный код.

        This code has expired or was replaced. Send a new code.
        = Срок действия кода истёк, или он был заменён. Отправьте новый код.

        This account has been disabled.
        = Эта учётная запись отключена.

        SMS cannot be sent to this country or region.
        = SMS нельзя отправить в эту страну или регион.

        Enter the number in international format, for example +15555550100.
        = Введите номер в международном формате, например +15555550100.

        This is already one of your second factors.
        = Это уже один из ваших вторых факторов.

        Check the e-mail address and try again.
        = Проверьте адрес электронной почты и повторите попытку.

        Verify your e-mail address before you set up a second factor: open the link we sent you, then sign in again.
        = Подтвердите адрес электронной почты, прежде чем настраивать второй фактор: откройте отправленную ссылку и войдите снова.

        You have the most second factors an account may have.
        = У вас уже максимальное число вторых факторов.

        This method is not available. Choose another one.
        = Этот способ недоступен. Выберите другой.

        SMS cannot be sent to this number from this server.
        = С этого сервера нельзя отправить SMS на этот номер.

        The code could not be sent. Try again.
        = Не удалось отправить код. Попробуйте снова.

        This method is unavailable right now. Try again or choose another one.
        = Этот способ сейчас недоступен. Попробуйте снова или выберите другой.

        Something went wrong. Try again.
        = Что-то пошло не так. Попробуйте снова.

        Your sign-in took too long or was withdrawn. Sign in again.
        = Вход занял слишком много времени или был отменён. Войдите снова.

        Request refused
        = Запрос отклонён

        This form was not sent from this sign-in page. Return to the app and start again.
        = Эта форма отправлена не с этой страницы входа. Вернитесь в приложение и начните заново.

        Sign-in ended
        = Вход завершён

        Try again later
        = Повторите позже

        The sign-in service is unavailable.
        = Служба входа недоступна.

        This sign-in link is incomplete. Return to the app and start again.
        = Ссылка для входа неполная. Вернитесь в приложение и начните заново.

        This sign-in is not known or has ended. Return to the app and start again.
        = Этот вход неизвестен или уже завершён. Вернитесь в приложение и начните заново.

        This sign-in is already complete. Return to the app.
        = Этот вход уже выполнен. Вернитесь в приложение.

        This sign-in has expired. Return to the app and start again.
        = Срок этого входа истёк. Вернитесь в приложение и начните заново.

        This sign-in has ended. Return to the app and start again.
        = Этот вход завершён. Вернитесь в приложение и начните заново.

        This sign-in is already complete or has expired. Return to the app.
        = Этот вход уже выполнен или истёк. Вернитесь в приложение.

        Sign-in not possible here
        = Здесь вход невозможен

        Your second factor cannot be used on this page. Sign in with the app instead.
        = Ваш второй фактор нельзя использовать на этой странице. Войдите через приложение.

        Request not valid
        = Недопустимый запрос

        The form could not be read.
        = Не удалось прочитать форму.

        Sign-in disabled
        = Вход отключён

        Sign-in is disabled here.
        = Здесь вход отключён.

        Too many sign-ins
        = Слишком много входов

        Too many sign-ins were started from your network. Try again in {wait}.
        = Из вашей сети начато слишком много входов. Повторите через {wait}.

        Sign-in request not valid
        = Недопустимый запрос на вход

        {detail} The application that sent you here is misconfigured; no sign-in can take place.
        = {detail} Приложение, направившее вас сюда, настроено неверно; вход невозможен.

        Sign-out failed
        = Не удалось выйти

        The request could not be read.
        = Не удалось прочитать запрос.

        The application sent an ID token this service did not issue.
        = Приложение отправило ID-токен, который эта служба не выпускала.

        The application named another client than the one its ID token was issued to.
        = Приложение указало другой клиент, чем тот, которому выдан ID-токен.

        The application is not registered here.
        = Это приложение здесь не зарегистрировано.

        The application must say who it is (client_id or id_token_hint) to be sent back.
        = Чтобы вернуться, приложение должно назвать себя (client_id или id_token_hint).

        The application asked to be sent back to an address it did not register.
        = Приложение запросило возврат на адрес, который не регистрировало.

        Signed out
        = Вы вышли

        You are signed out. You can close this page.
        = Вы вышли из системы. Эту страницу можно закрыть.

        Sign out?
        = Выйти?

        An application
        = Приложение

        {client} asks to sign you out of this browser.
        = {client} просит выйти из системы в этом браузере.

        Sign out
        = Выйти

        Sign in with a phone number
        = Войти по номеру телефона

        +1 555 555 0100
        = +7 912 345 67 89

        Sign in with your phone
        = Вход по телефону

        We will send a code by SMS to this number.
        = Мы отправим код по SMS на этот номер.

        Send the code
        = Отправить код

        Use e-mail and password
        = Войти по адресу почты и паролю

        Use another number
        = Другой номер

        Enter your phone number.
        = Введите номер телефона.

        This number protects an account as its second factor. Sign in with that account's e-mail address and password.
        = Этот номер защищает учётную запись как второй фактор. Войдите с адресом почты и паролем этой учётной записи.

        Authenticator app
        = Приложение-аутентификатор

        Use an authenticator app
        = Использовать приложение-аутентификатор

        Set up your authenticator app
        = Настройка приложения-аутентификатора

        Enter the 6-digit code your authenticator app shows.
        = Введите 6-значный код из приложения-аутентификатора.

        Scan the QR code with your authenticator app, or type in the key, then enter the 6-digit code the app shows.
        = Отсканируйте QR-код приложением-аутентификатором или введите ключ, затем введите 6-значный код из приложения.

        Text message (SMS)
        = SMS-сообщение

        Send a code by SMS
        = Отправить код по SMS

        Phone number
        = Номер телефона

        In international format, for example +15555550100.
        = В международном формате, например +15555550100.

        Confirm your phone number
        = Подтвердите номер телефона

        Enter the 6-digit code we sent by SMS to {phoneNumber}.
        = Введите 6-значный код, отправленный по SMS на {phoneNumber}.

        SMS to {phoneInfo}
        = SMS на {phoneInfo}

        Enter the 6-digit code we sent by SMS to {phoneInfo}.
        = Введите 6-значный код, отправленный по SMS на {phoneInfo}.

        Recovery code
        = Код восстановления

        Make recovery codes
        = Создать коды восстановления

        Save your recovery codes
        = Сохраните коды восстановления

        Write these codes down or print them, and keep them somewhere safe: each works once, if you lose your other second factor. Then enter one of them to confirm.
        = Запишите или распечатайте эти коды и храните их в надёжном месте: каждый действует один раз, если вы потеряете другой второй фактор. Затем введите один из них для подтверждения.

        Enter one of your recovery codes. Each code works once.
        = Введите один из кодов восстановления. Каждый код действует один раз.

        Verify your e-mail address
        = Подтвердите адрес электронной почты

        Follow this link to verify your e-mail address:\n\n{link}\n\nIf you did not ask for this, ignore this message.
        = Перейдите по ссылке, чтобы подтвердить адрес электронной почты:\n\n{link}\n\nЕсли вы этого не запрашивали, проигнорируйте это письмо.

        Follow this link to choose a new password (it works for one hour, once):\n\n{link}\n\nIf you did not ask for this, ignore this message: your password stays as it is.
        = Перейдите по ссылке, чтобы выбрать новый пароль (она действует один час, один раз):\n\n{link}\n\nЕсли вы этого не запрашивали, проигнорируйте письмо: ваш пароль останется прежним.
        """#
}
