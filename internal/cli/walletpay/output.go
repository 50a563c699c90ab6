package walletpay

import (
	"context"
	"errors"
	"fmt"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/render"
)

// ResultFields lists a walletPay result with the field names and JSON
// types of docs/protocol.md (walletPay), whatever spelling the gateway
// used: the live gateway's sipay_status and sipay_payment_method come out
// as service_status and service_payment_method. Amounts are JSON numbers
// with the gateway's digits. Fields that page does not name follow, sorted,
// as the gateway wrote them.
func ResultFields(r *gateway.WalletPayResult) []render.Field {
	fs := []render.Field{
		render.IntField("service_status", r.ServiceStatus),
		render.StringField("order_no", r.OrderNo),
		render.StringField("order_id", r.OrderID),
		render.StringField("invoice_id", r.InvoiceID),
		render.StringField("service_payment_method", r.ServicePaymentMethod),
		render.StringField("credit_card_no", r.CreditCardNo),
		render.StringField("transaction_type", r.TransactionType),
		render.IntField("payment_status", r.PaymentStatus),
		render.StringField("payment_method", r.PaymentMethod),
		render.IntField("error_code", r.ErrorCode),
		render.StringField("error", r.Error),
		render.StringField("auth_code", r.AuthCode),
		render.NumberField("merchant_commission", r.MerchantCommission),
		render.NumberField("user_commission", r.UserCommission),
		render.NumberField("merchant_commission_percentage", r.MerchantCommissionPercentage),
		render.NumberField("merchant_commission_fixed", r.MerchantCommissionFixed),
		render.StringField("host_reference_id", r.HostReferenceID),
		render.StringField("payment_reason_code", r.PaymentReasonCode),
		render.StringField("payment_reason_code_detail", r.PaymentReasonCodeDetail),
	}
	return append(fs, render.ExtraFields(r.Extra)...)
}

func writeResult(ctx context.Context, opts *Options, format render.Format, r *gateway.WalletPayResult) error {
	if r == nil {
		r = &gateway.WalletPayResult{}
	}
	err := opts.JSON.WriteFields(ctx, opts.IO.Out, format, render.Palette{Enabled: opts.IO.ColorEnabled()}, ResultFields(r))
	// The payment went through whatever the filter does: a failing --jq
	// must not turn a charge into an exit code that says otherwise.
	var jqErr *cmdutil.JQError
	if errors.As(err, &jqErr) {
		fmt.Fprintf(opts.IO.ErrOut, "warning: the payment succeeded (invoice %s, order %s), but %v\n", r.InvoiceID, r.OrderNo, jqErr)
		return nil
	}
	return err
}
