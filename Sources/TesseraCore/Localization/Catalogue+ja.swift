/// The translations into `ja` of the login pages' and mails' texts (``TextCatalogue``): an English line, then
/// its translation after `= `. Keep every `{placeholder}` of the English line; `\n` is a line break.
enum CatalogueJA {
    static let text = #"""
        a moment
        = しばらく

        1 second
        = 1秒

        {count} seconds
        = {count}秒

        1 minute
        = 1分

        {count} minutes
        = {count}分

        1 hour
        = 1時間

        {count} hours
        = {count}時間

        Sign in
        = サインイン

        {client} asks you to sign in with your {realm} account.
        = {client} が {realm} のアカウントでのサインインを求めています。

        E-mail address
        = メールアドレス

        Password
        = パスワード

        Forgot your password?
        = パスワードをお忘れですか？

        Reset your password
        = パスワードの再設定

        Enter the e-mail address of your account. We will send it a link to choose a new password.
        = アカウントのメールアドレスを入力してください。新しいパスワードを設定するためのリンクを送信します。

        Send the link
        = リンクを送信

        Check your e-mail
        = メールをご確認ください

        If {email} belongs to an account, we have sent it a link to choose a new password. The link works once, for one hour.
        = {email} がアカウントに登録されている場合、新しいパスワードを設定するためのリンクを送信しました。リンクは1時間、1回だけ使えます。

        Back to sign-in
        = サインインに戻る

        Confirm it's you
        = 本人確認

        Choose how to confirm it's you
        = 本人確認の方法を選んでください

        Continue
        = 続ける

        Enter your code
        = コードを入力

        Enter your verification code.
        = 確認コードを入力してください。

        Use another method
        = 別の方法を使う

        Set up a second factor
        = 2段階認証の設定

        Your account must be protected with a second factor. Set one up to continue.
        = アカウントは2段階認証で保護する必要があります。続けるには設定してください。

        No second factor can be set up here. Contact your administrator.
        = ここでは2段階認証を設定できません。管理者にお問い合わせください。

        QR code to scan
        = 読み取るQRコード

        Or type in this key:
        = またはこのキーを入力してください：

        Set up your second factor
        = 2段階認証を設定

        Verification code
        = 確認コード

        Verify
        = 確認

        Send a new code
        = コードを再送信

        Second factor
        = 2段階認証

        Choose a new password
        = 新しいパスワードの設定

        New password
        = 新しいパスワード

        8 characters or more.
        = 8文字以上。

        Change my password
        = パスワードを変更

        Password changed
        = パスワードを変更しました

        The password of {email} has been changed, and every device signed in to the account was signed out. Return to the app and sign in with your new password.
        = {email} のパスワードを変更し、このアカウントにサインインしていたすべての端末をサインアウトしました。アプリに戻り、新しいパスワードでサインインしてください。

        Enter a new password.
        = 新しいパスワードを入力してください。

        Choose a password of 8 to 4096 characters.
        = 8〜4096文字のパスワードを設定してください。

        Link expired
        = リンクの有効期限切れ

        This link has expired. Ask for a new one.
        = このリンクは有効期限が切れています。新しいリンクをリクエストしてください。

        Link not valid
        = 無効なリンク

        This link is not valid or has already been used. Ask for a new one.
        = このリンクは無効か、すでに使用されています。新しいリンクをリクエストしてください。

        This password-reset link is incomplete.
        = このパスワード再設定リンクは不完全です。

        The reset code is missing.
        = 再設定コードがありません。

        This form was not sent from this page. Open the link of the mail again.
        = このフォームはこのページから送信されていません。メールのリンクをもう一度開いてください。

        Enter your e-mail address.
        = メールアドレスを入力してください。

        Enter a valid e-mail address.
        = 有効なメールアドレスを入力してください。

        Enter your password.
        = パスワードを入力してください。

        Enter the code.
        = コードを入力してください。

        Enter your {label}.
        = {label}を入力してください。

        Choose a method.
        = 方法を選んでください。

        Choose a method first.
        = 先に方法を選んでください。

        Choose one of the methods.
        = いずれかの方法を選んでください。

        No code was sent yet. Send a new code.
        = まだコードは送信されていません。新しいコードを送信してください。

        This page could not check your browser. Allow its script to run, then try again.
        = このページでブラウザを確認できませんでした。スクリプトの実行を許可してから、もう一度お試しください。

        The e-mail address or the password is not correct.
        = メールアドレスまたはパスワードが正しくありません。

        Too many attempts. Try again in {wait}.
        = 試行回数が多すぎます。{wait}後にもう一度お試しください。

        Too many codes were sent. Try again in {wait}.
        = 送信したコードが多すぎます。{wait}後にもう一度お試しください。

        The code is not correct.
        = コードが正しくありません。

        This code has expired or was replaced. Send a new code.
        = このコードは有効期限が切れたか、置き換えられました。新しいコードを送信してください。

        This account has been disabled.
        = このアカウントは無効になっています。

        SMS cannot be sent to this country or region.
        = この国または地域にはSMSを送信できません。

        Enter the number in international format, for example +15555550100.
        = 国際形式で番号を入力してください（例：+15555550100）。

        This is already one of your second factors.
        = これはすでにあなたの2段階認証の1つです。

        Check the e-mail address and try again.
        = メールアドレスを確認して、もう一度お試しください。

        Verify your e-mail address before you set up a second factor: open the link we sent you, then sign in again.
        = 2段階認証を設定する前にメールアドレスを確認してください。送信したリンクを開いてから、もう一度サインインしてください。

        You have the most second factors an account may have.
        = アカウントに設定できる2段階認証の上限に達しています。

        This method is not available. Choose another one.
        = この方法は利用できません。別の方法を選んでください。

        SMS cannot be sent to this number from this server.
        = このサーバーからこの番号にSMSを送信できません。

        The code could not be sent. Try again.
        = コードを送信できませんでした。もう一度お試しください。

        This method is unavailable right now. Try again or choose another one.
        = この方法は現在利用できません。もう一度試すか、別の方法を選んでください。

        Something went wrong. Try again.
        = 問題が発生しました。もう一度お試しください。

        Your sign-in took too long or was withdrawn. Sign in again.
        = サインインに時間がかかりすぎたか、取り消されました。もう一度サインインしてください。

        Request refused
        = リクエストが拒否されました

        This form was not sent from this sign-in page. Return to the app and start again.
        = このフォームはこのサインインページから送信されていません。アプリに戻ってやり直してください。

        Sign-in ended
        = サインインは終了しました

        Try again later
        = 後でもう一度お試しください

        The sign-in service is unavailable.
        = サインインサービスを利用できません。

        This sign-in link is incomplete. Return to the app and start again.
        = このサインインリンクは不完全です。アプリに戻ってやり直してください。

        This sign-in is not known or has ended. Return to the app and start again.
        = このサインインは不明か、すでに終了しています。アプリに戻ってやり直してください。

        This sign-in is already complete. Return to the app.
        = このサインインはすでに完了しています。アプリに戻ってください。

        This sign-in has expired. Return to the app and start again.
        = このサインインは有効期限が切れました。アプリに戻ってやり直してください。

        This sign-in has ended. Return to the app and start again.
        = このサインインは終了しました。アプリに戻ってやり直してください。

        This sign-in is already complete or has expired. Return to the app.
        = このサインインはすでに完了したか、有効期限が切れています。アプリに戻ってください。

        Sign-in not possible here
        = ここではサインインできません

        Your second factor cannot be used on this page. Sign in with the app instead.
        = このページでは2段階認証を使用できません。代わりにアプリでサインインしてください。

        Request not valid
        = 無効なリクエスト

        The form could not be read.
        = フォームを読み取れませんでした。

        Sign-in disabled
        = サインインは無効です

        Sign-in is disabled here.
        = ここではサインインが無効になっています。

        Too many sign-ins
        = サインインが多すぎます

        Too many sign-ins were started from your network. Try again in {wait}.
        = お使いのネットワークから開始されたサインインが多すぎます。{wait}後にもう一度お試しください。

        Sign-in request not valid
        = 無効なサインインリクエスト

        {detail} The application that sent you here is misconfigured; no sign-in can take place.
        = {detail} このページに移動させたアプリケーションの設定に誤りがあるため、サインインできません。

        Sign-out failed
        = サインアウトに失敗しました

        The request could not be read.
        = リクエストを読み取れませんでした。

        The application sent an ID token this service did not issue.
        = アプリケーションが、このサービスの発行していないIDトークンを送信しました。

        The application named another client than the one its ID token was issued to.
        = アプリケーションが、IDトークンの発行先とは別のクライアントを指定しました。

        The application is not registered here.
        = このアプリケーションは登録されていません。

        The application must say who it is (client_id or id_token_hint) to be sent back.
        = 戻り先へ移動するには、アプリケーションが自身を示す必要があります（client_id または id_token_hint）。

        The application asked to be sent back to an address it did not register.
        = アプリケーションが、登録されていないアドレスへの移動を要求しました。

        Signed out
        = サインアウトしました

        You are signed out. You can close this page.
        = サインアウトしました。このページを閉じてかまいません。

        Sign out?
        = サインアウトしますか？

        An application
        = アプリケーション

        {client} asks to sign you out of this browser.
        = {client} がこのブラウザからのサインアウトを求めています。

        Sign out
        = サインアウト

        Sign in with a phone number
        = 電話番号でサインイン

        +1 555 555 0100
        = +81 90 1234 5678

        Sign in with your phone
        = 電話でサインイン

        We will send a code by SMS to this number.
        = この番号にSMSでコードを送信します。

        Send the code
        = コードを送信

        Use e-mail and password
        = メールアドレスとパスワードを使う

        Use another number
        = 別の番号を使う

        Enter your phone number.
        = 電話番号を入力してください。

        This number protects an account as its second factor. Sign in with that account's e-mail address and password.
        = この番号はアカウントの2段階認証として使われています。そのアカウントのメールアドレスとパスワードでサインインしてください。

        Authenticator app
        = 認証アプリ

        Use an authenticator app
        = 認証アプリを使う

        Set up your authenticator app
        = 認証アプリの設定

        Enter the 6-digit code your authenticator app shows.
        = 認証アプリに表示される6桁のコードを入力してください。

        Scan the QR code with your authenticator app, or type in the key, then enter the 6-digit code the app shows.
        = 認証アプリでQRコードを読み取るかキーを入力し、アプリに表示される6桁のコードを入力してください。

        Text message (SMS)
        = テキストメッセージ（SMS）

        Send a code by SMS
        = SMSでコードを送信

        Phone number
        = 電話番号

        In international format, for example +15555550100.
        = 国際形式（例：+15555550100）。

        Confirm your phone number
        = 電話番号の確認

        Enter the 6-digit code we sent by SMS to {phoneNumber}.
        = {phoneNumber} にSMSで送信した6桁のコードを入力してください。

        SMS to {phoneInfo}
        = {phoneInfo} へのSMS

        Enter the 6-digit code we sent by SMS to {phoneInfo}.
        = {phoneInfo} にSMSで送信した6桁のコードを入力してください。

        Recovery code
        = リカバリーコード

        Make recovery codes
        = リカバリーコードを作成

        Save your recovery codes
        = リカバリーコードを保存

        Write these codes down or print them, and keep them somewhere safe: each works once, if you lose your other second factor. Then enter one of them to confirm.
        = これらのコードを書き留めるか印刷して、安全な場所に保管してください。もう一方の2段階認証を失ったときに、各コードを1回だけ使えます。確認のため、そのうちの1つを入力してください。

        Enter one of your recovery codes. Each code works once.
        = リカバリーコードを1つ入力してください。各コードは1回だけ使えます。

        Verify your e-mail address
        = メールアドレスの確認

        Follow this link to verify your e-mail address:\n\n{link}\n\nIf you did not ask for this, ignore this message.
        = 次のリンクからメールアドレスを確認してください：\n\n{link}\n\nお心当たりがない場合は、このメッセージを無視してください。

        Follow this link to choose a new password (it works for one hour, once):\n\n{link}\n\nIf you did not ask for this, ignore this message: your password stays as it is.
        = 次のリンクから新しいパスワードを設定してください（1時間、1回だけ有効）：\n\n{link}\n\nお心当たりがない場合は、このメッセージを無視してください。パスワードは変更されません。
        """#
}
